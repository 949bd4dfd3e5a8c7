/**
 * The names connected Vims go by: unique among the Vims connected at once (`work`, `work#2`,
 * `work#3`, ...), and kept by an instance that reconnects while its name is free, to this agent
 * or, after a restart, to the next one. Pure: holds plain maps, does no I/O.
 */

/** Most instances whose last name is remembered; the oldest is forgotten first. */
export const VIM_NAMES_REMEMBERED = 1000;

/** Who holds which name; see the module header. */
export class VimNames {
  /** instance -> name of the Vims connected now. */
  readonly #live = new Map<string, string>();
  /** instance -> the name it had last (connected or not), oldest first. */
  readonly #last = new Map<string, string>();

  /**
   * Gives `instance` a name, preferring the one it had, then `requested`, `requested#2`, ... What it
   * had is what this table remembers, else `told`: the name the Vim says an agent gave it last (an
   * agent that restarted remembers none), so that Vims asking for the same name keep theirs
   * whatever order they reconnect in.
   */
  claim(instance: string, requested: string, told?: string): string {
    this.#live.delete(instance);
    const taken = new Set(this.#live.values());
    const previous = this.#last.get(instance) ?? told;
    let name = previous !== undefined && !taken.has(previous) && previous.replace(/#\d+$/, '') === requested ? previous : requested;
    for (let n = 2; taken.has(name); n++) name = `${requested}#${n}`;
    this.#live.set(instance, name);
    this.#last.delete(instance);
    this.#last.set(instance, name);
    if (this.#last.size > VIM_NAMES_REMEMBERED) {
      const oldest = this.#last.keys().next().value;
      if (oldest !== undefined) this.#last.delete(oldest);
    }
    return name;
  }

  /** Frees the name of `instance` if it still holds `name` (its memory of the name stays). */
  release(instance: string, name: string): void {
    if (this.#live.get(instance) === name) this.#live.delete(instance);
  }
}
