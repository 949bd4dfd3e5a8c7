/**
 * Answers from the Pending page, carried to the agent that holds the decision (PROTOCOL.md
 * "Pending decisions"). The relay decides nothing: it refuses what it can tell is wrong before it
 * carries anything, in this order — a form sent before (REPLAYED; the route has already refused
 * a forged one), a device that is not this account's (UNKNOWN_DEVICE: the Hub is the account's,
 * and knows no other account's devices), a decision its device did not publish (OTHER_DEVICE when
 * another device of the account did, NOT_PENDING when none does now), one its agent said was
 * settled lately (ALREADY_DECIDED, with where, as the agent would say), a device whose agent is not
 * connected (DEVICE_OFFLINE) — then sends a `decide` on the device's live connection and returns
 * the agent's own word (`decided`), or NO_ANSWER when it has none within
 * DECISION_LIMITS.decideWaitMs, DEVICE_OFFLINE when its connection ends first.
 */
import { DECISION_LIMITS, type DecideOutcome, type DecisionAnswer } from '../../protocol/index.ts';
import type { DeviceStore } from '../auth/devices.ts';
import type { AgentSockets } from './agent-sockets.ts';
import type { DecideRequests } from './decide-requests.ts';
import type { PublishedDecisions } from './decisions.ts';
import { send } from './sockets.ts';
import type { UsedForms } from './used-forms.ts';

/** One answer from the page, its form already checked by the route (auth/decision-forms.ts). */
export interface DecideRequest {
  /** The device the form names, and the decision it answers. */
  device: string;
  decision: string;
  answer: DecisionAnswer;
  /** The SHA-256 of the form's nonce, and until when the form is good (epoch ms). */
  form: { hash: string; expiresAtMs: number };
}

/** What the router needs from the Hub that holds it. */
export interface DecisionRouterDeps {
  readonly sockets: AgentSockets;
  readonly devices: DeviceStore;
  readonly published: PublishedDecisions;
  readonly requests: DecideRequests;
  readonly usedForms: UsedForms;
}

export class DecisionRouter {
  readonly #d: DecisionRouterDeps;

  constructor(deps: DecisionRouterDeps) {
    this.#d = deps;
  }

  /** Carries `request` as the module header says; never throws. */
  async decide(request: DecideRequest): Promise<DecideOutcome> {
    const { sockets, devices, published, requests, usedForms } = this.#d;
    const nowMs = Date.now();
    if (!usedForms.use(request.form.hash, request.form.expiresAtMs, nowMs)) return { ok: false, code: 'REPLAYED' };
    if (!devices.usable(request.device)) return { ok: false, code: 'UNKNOWN_DEVICE' };
    // An agent that went silent holds nothing any more.
    sockets.dropSilent(nowMs);
    const holders = published.holders(request.decision, nowMs);
    const here = holders.find((h) => h.deviceId === request.device);
    if (!here) return { ok: false, code: holders.length > 0 ? 'OTHER_DEVICE' : 'NOT_PENDING' };
    // Settled already: the agent said where, and there is nothing to carry.
    if (here.settledBy !== null) return { ok: false, code: 'ALREADY_DECIDED', by: here.settledBy };
    const live = sockets.live(request.device);
    if (!live) return { ok: false, code: 'DEVICE_OFFLINE' };
    const connId = live.attachment.connId;
    const { id, outcome } = requests.start(connId, DECISION_LIMITS.decideWaitMs);
    if (!send(live.ws, { type: 'decide', id, decision: request.decision, answer: request.answer })) requests.settle(id, connId, { ok: false, code: 'DEVICE_OFFLINE' });
    return outcome;
  }
}
