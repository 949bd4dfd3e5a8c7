/**
 * In-flight tool calls: each call sent to an agent waits here for its `result`, its deadline, a
 * cancellation or its socket's end, whichever comes first, and is settled exactly once. In memory
 * on purpose: a pending call keeps the Hub awake (its RPC is open), and a restart loses the
 * caller's RPC too. Never retries anything (ARCHITECTURE.md "Edits and the user"): a call that may have
 * reached the editor is answered, not sent again.
 */
import { fail, type ToolOutcome } from '../../protocol/index.ts';

/** What the Hub knows about a call in flight. */
export interface CallSlot {
  /** The wire id (`call.id`, `result.id`, `cancel.id`). */
  readonly id: string;
  /** The socket connection the call was sent on (see `Attachment.connId`). */
  readonly connId: string;
  readonly deviceId: string;
  /** This call's own handle, unique per call: the Worker cancels it when its client goes away. */
  readonly callKey: string;
  /**
   * What a legacy-era `notifications/cancelled` can name: token + JSON-RPC request id. Two
   * clients holding one token may reuse a request id, so it need not be unique (see byRequestKey).
   */
  readonly requestKey?: string;
}

interface Pending extends CallSlot {
  readonly resolve: (outcome: ToolOutcome) => void;
  readonly timer: ReturnType<typeof setTimeout>;
}

export class CallTable {
  private readonly pending = new Map<string, Pending>();
  private readonly idByKey = new Map<string, string>();
  private readonly idsByRequestKey = new Map<string, Set<string>>();

  /**
   * Registers a call and arms its timer: `waitMs`, the call's deadline plus the grace the agent
   * gets for its own answer (LIMITS.hubGraceMs). When it fires, `onExpire` runs (the Hub tells the
   * agent to cancel) and the call is answered TIMEOUT, with `timeoutHint` when the tool has one.
   * Returns the wire id and the outcome promise.
   */
  start(
    slot: Omit<CallSlot, 'id'>,
    waitMs: number,
    onExpire: (slot: CallSlot) => void,
    timeoutHint?: string,
  ): { id: string; outcome: Promise<ToolOutcome> } {
    const id = crypto.randomUUID();
    const outcome = new Promise<ToolOutcome>((resolve) => {
      const timer = setTimeout(() => {
        const pending = this.pending.get(id);
        if (!pending) return;
        onExpire(pending);
        const hint = timeoutHint === undefined ? {} : { hint: timeoutHint };
        this.settle(id, fail('TIMEOUT', `The agent did not answer by the call's deadline (the relay waited ${waitMs} ms, its grace included); the call was cancelled.`, hint));
      }, waitMs);
      this.pending.set(id, { ...slot, id, resolve, timer });
    });
    this.idByKey.set(slot.callKey, id);
    if (slot.requestKey !== undefined) {
      const ids = this.idsByRequestKey.get(slot.requestKey) ?? new Set();
      this.idsByRequestKey.set(slot.requestKey, ids.add(id));
    }
    return { id, outcome };
  }

  /** Answers a call. Returns its slot, or undefined if it was already settled (or never existed). */
  settle(id: string, outcome: ToolOutcome): CallSlot | undefined {
    const pending = this.pending.get(id);
    if (!pending) return undefined;
    clearTimeout(pending.timer);
    this.pending.delete(id);
    if (this.idByKey.get(pending.callKey) === id) this.idByKey.delete(pending.callKey);
    if (pending.requestKey !== undefined) {
      const ids = this.idsByRequestKey.get(pending.requestKey);
      ids?.delete(id);
      if (ids?.size === 0) this.idsByRequestKey.delete(pending.requestKey);
    }
    pending.resolve(outcome);
    return pending;
  }

  /** How many calls are in flight. */
  get size(): number {
    return this.pending.size;
  }

  /** The call in flight with this wire id, if any. */
  byId(id: string): CallSlot | undefined {
    return this.pending.get(id);
  }

  /** The call in flight for a client's call key, if any. */
  byCallKey(callKey: string): CallSlot | undefined {
    const id = this.idByKey.get(callKey);
    return id === undefined ? undefined : this.pending.get(id);
  }

  /**
   * The one call in flight under a request key, if exactly one is. Several (two clients of one
   * token used the same request id) cannot be told apart, so none is returned: a cancellation
   * never stops another client's call.
   */
  byRequestKey(requestKey: string): CallSlot | undefined {
    const ids = this.idsByRequestKey.get(requestKey);
    if (ids?.size !== 1) return undefined;
    const [id] = ids;
    return id === undefined ? undefined : this.pending.get(id);
  }

  /** Answers every call sent on a connection (it closed or was replaced). Returns their slots. */
  settleConnection(connId: string, outcome: ToolOutcome): CallSlot[] {
    const slots = [...this.pending.values()].filter((p) => p.connId === connId);
    for (const slot of slots) this.settle(slot.id, outcome);
    return slots;
  }
}
