/**
 * Answers from the Pending page in flight to an agent: each `decide` the Hub sends waits here for
 * the agent's `decided` on the same connection, the agent's silence (DECISION_LIMITS.decideWaitMs)
 * or its connection's end, whichever comes first, and is settled exactly once. In memory on
 * purpose, as calls.ts: the page's request keeps the Hub awake while it waits. A `decided` from
 * another connection than the one the answer went to is dropped: one device's agent can never
 * speak for another's decision.
 */
import type { DecideOutcome } from '../../protocol/index.ts';

interface Waiting {
  readonly connId: string;
  readonly resolve: (outcome: DecideOutcome) => void;
  readonly timer: ReturnType<typeof setTimeout>;
}

export class DecideRequests {
  readonly #waiting = new Map<string, Waiting>();

  /** Registers an answer sent on connection `connId`; its wire id and its outcome (NO_ANSWER after `waitMs`). */
  start(connId: string, waitMs: number): { id: string; outcome: Promise<DecideOutcome> } {
    const id = crypto.randomUUID();
    const outcome = new Promise<DecideOutcome>((resolve) => {
      const timer = setTimeout(() => this.settle(id, connId, { ok: false, code: 'NO_ANSWER' }), waitMs);
      this.#waiting.set(id, { connId, resolve, timer });
    });
    return { id, outcome };
  }

  /** Settles answer `id` with what connection `connId` said of it; false when it waits for no such thing there. */
  settle(id: string, connId: string, outcome: DecideOutcome): boolean {
    const waiting = this.#waiting.get(id);
    if (!waiting || waiting.connId !== connId) return false;
    clearTimeout(waiting.timer);
    this.#waiting.delete(id);
    waiting.resolve(outcome);
    return true;
  }

  /** Settles every answer sent on connection `connId` (it closed) DEVICE_OFFLINE. */
  settleConnection(connId: string): void {
    for (const [id, waiting] of this.#waiting) {
      if (waiting.connId === connId) this.settle(id, connId, { ok: false, code: 'DEVICE_OFFLINE' });
    }
  }
}
