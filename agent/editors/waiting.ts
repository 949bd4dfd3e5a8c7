/**
 * The requests an editor connection has sent and waits to hear answered, each under the
 * AbortSignal of its call, with ONE abort listener per signal however many wait under it. A call
 * may send many requests at once (Vim's staged pieces of a long text; the policy's paths check of
 * each file an edit changes), and a listener each would pass Node's limit of 10 per EventTarget
 * and print "Possible EventTarget memory leak detected" into the agent's log. Bookkeeping only:
 * the connection writes the requests and reads the answers (nvim/connection.ts, vim/channel.ts).
 */

/** What a waiting request is told when it ends without an answer. */
export interface Rejectable {
  reject(error: unknown): void;
}

/** Requests waiting by id; see the module header. */
export class Waiting<T extends Rejectable> {
  readonly #byId = new Map<number, { entry: T; signal: AbortSignal | undefined }>();
  readonly #bySignal = new Map<AbortSignal, { ids: Set<number>; onAbort(): void }>();

  /** Waits `entry` under `id` until `settle(id)`; `signal` aborting first rejects it with its reason. */
  add(id: number, entry: T, signal?: AbortSignal): void {
    this.#byId.set(id, { entry, signal });
    if (signal === undefined) return;
    let waiting = this.#bySignal.get(signal);
    if (waiting === undefined) {
      const ids = new Set<number>();
      const onAbort = (): void => {
        for (const each of [...ids]) this.settle(each)?.reject(signal.reason);
      };
      waiting = { ids, onAbort };
      this.#bySignal.set(signal, waiting);
      signal.addEventListener('abort', onAbort, { once: true });
    }
    waiting.ids.add(id);
  }

  /** Forgets `id`, and its signal's listener with its last request; its entry, or undefined when none waits (aborted, say). */
  settle(id: number): T | undefined {
    const found = this.#byId.get(id);
    if (found === undefined) return undefined;
    this.#byId.delete(id);
    const { signal } = found;
    const waiting = signal === undefined ? undefined : this.#bySignal.get(signal);
    if (signal !== undefined && waiting !== undefined) {
      waiting.ids.delete(id);
      if (waiting.ids.size === 0) {
        this.#bySignal.delete(signal);
        signal.removeEventListener('abort', waiting.onAbort);
      }
    }
    return found.entry;
  }

  /** Forgets every request (the connection closed) and returns their entries. */
  drain(): T[] {
    return [...this.#byId.keys()].flatMap((id) => this.settle(id) ?? []);
  }
}
