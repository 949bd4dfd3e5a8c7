/**
 * The agent's pending decisions (DESIGN "Pending decisions"; README "Deciding from elsewhere"):
 * every open permission prompt (policy/ask.ts) and every open review (reviews/book.ts) is one
 * entry here, with what it shows, the surfaces the user lets it be answered on (the policy's
 * `ask_via`, among those available now) and when it expires. This book is the one place that
 * says who decided: each part of an entry (a prompt has one; a review one per file, each
 * decided on its own) is claimed once, by the first surface that answers it, and every later
 * answer is refused, naming that surface. The agent alone settles; a relay only carries answers
 * here (relay/decisions.ts) and learns what this book said.
 *
 * Contract: `open` registers an entry and returns its handle; its owner claims a part for the
 * editor when the editor answers (`claim`), and closes it when the decision is over for any
 * reason (`close`: answered, timed out, cancelled, the editor gone). `answer` takes an answer from
 * another surface: NOT_PENDING for an id it does not hold (closed, expired, or never made here),
 * NOT_OFFERED when the entry may not be answered there, INVALID_ANSWER for an answer the entry
 * does not offer (allow for a preview too long to show), ALREADY_DECIDED (with `by`) when every
 * part was claimed already; otherwise it claims the parts still open and hands the answer to the
 * entry's owner (`onAnswer`), whose word on what came of it (`said`) it returns. Settled entries
 * are remembered a while (KEPT, KEPT_MS), so that a late answer hears who decided rather than
 * that nothing waits (and `settled(surface)` lists them, for a relay to say so too). `list(surface)`
 * gives the entries answerable there now, oldest first, as the wire publishes them (parts already
 * decided left out). Listeners hear of every change.
 * Never logs what an entry shows.
 */
import { randomUUID } from 'node:crypto';
import { DECISION_LIMITS, type DecideResult, type DecisionAnswer, type DecisionOffer, type DecisionSection, type PermissionClass, type Surface, type WireDecision } from '../../protocol/index.ts';

/** What came of an answer, as the page tells the user (protocol/decisions.ts SAID). */
export type Said = Extract<DecideResult, { ok: true }>['said'];

/** What an entry shows, and who owns it. */
export interface DecisionSpec {
  kind: 'prompt' | 'review';
  /** The agent's id of the editor it is for, and that editor's name. */
  editor: string;
  editorName: string;
  client: string;
  tool: string;
  klass: PermissionClass;
  paths: readonly string[];
  /** One per part: a prompt's preview, or each file's diff of a review (in part order). */
  sections: readonly DecisionSection[];
  offers: readonly DecisionOffer[];
  /** When it closes unanswered (epoch ms). */
  expiresAt: number;
  /** Where it may be answered. */
  surfaces: readonly Surface[];
  /**
   * Asks the user in the assistant of the call's own client (decisions/elicit*.ts), when the call
   * came from a client that can be asked and `surfaces` has `assistant`: called once, as the entry opens.
   */
  assistant?: AssistantAsk;
  /** Makes an answer from another surface so, for the parts it claimed; resolves with what came of it. */
  onAnswer(answer: DecisionAnswer, by: Surface, parts: readonly number[]): Promise<Said>;
}

/** Asks the user about an open decision in the assistant; its answer comes back through `answer(…, 'assistant')`. */
export type AssistantAsk = (decision: WireDecision) => void;

/** A claim on a part: won, or lost to the surface that claimed it first (null: nobody did; the entry closed unanswered). */
export type Claim = { won: true } | { won: false; by: Surface | null };

/** The handle an entry's owner holds. */
export interface PendingDecision {
  readonly id: string;
  /** Claims `part` (default 0) for `by`; lost when another surface claimed it first, or the entry closed. */
  claim(by: Surface, part?: number): Claim;
  /** The surface that made the latest claim on the entry (for a review of several files, the last file decided); null before any. */
  decidedBy(): Surface | null;
  /** The entry is over: it leaves the pending list (a settled one is remembered as decided). */
  close(): void;
}

/** Settled entries remembered for a late answer, the oldest dropped first, and for how long (ms). */
const KEPT = 200;
const KEPT_MS = 15 * 60_000;

interface Entry {
  readonly id: string;
  readonly spec: DecisionSpec;
  /** Who claimed each part, null while it is open. */
  readonly claims: (Surface | null)[];
  /** Who made the latest claim. */
  latest: Surface | null;
}

/** The agent's pending decisions; see the module header. */
export class DecisionBook {
  readonly #open = new Map<string, Entry>();
  /** Entries that were decided: by which surface, when, and where they could have been answered. */
  readonly #settled = new Map<string, { by: Surface; at: number; surfaces: readonly Surface[] }>();
  readonly #listeners = new Set<() => void>();
  /** Surfaces other than the editor that can reach the user now, with the page of each (the relay's Pending page). */
  readonly #offered = new Map<Surface, { pageUrl: string | null }>();
  readonly #now: () => number;

  /** `now`: the clock (epoch ms), for expiry. */
  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /**
   * Says that `surface` can reach the user from now on (`pageUrl`: where, if it is a page);
   * returns the function that says it no longer can.
   */
  offer(surface: Exclude<Surface, 'editor'>, pageUrl: string | null): () => void {
    const token = { pageUrl };
    this.#offered.set(surface, token);
    this.#changed();
    return () => {
      if (this.#offered.get(surface) !== token) return;
      this.#offered.delete(surface);
      this.#changed();
    };
  }

  /** The surfaces that can reach the user now: the editor, and those offered. */
  available(): Surface[] {
    return ['editor', ...this.#offered.keys()];
  }

  /** Where `surface`'s page is, if it is offered and has one. */
  pageUrl(surface: Exclude<Surface, 'editor'>): string | null {
    return this.#offered.get(surface)?.pageUrl ?? null;
  }

  /** Registers a pending decision; see the module header. */
  open(spec: DecisionSpec): PendingDecision {
    const entry: Entry = { id: randomUUID(), spec, claims: spec.sections.map(() => null), latest: null };
    this.#open.set(entry.id, entry);
    this.#changed();
    if (spec.surfaces.includes('assistant')) spec.assistant?.(wireOf(entry));
    return {
      id: entry.id,
      claim: (by, part = 0) => this.#claim(entry, by, [part]),
      decidedBy: () => entry.latest,
      close: () => this.#close(entry),
    };
  }

  /** Takes `answer` to decision `id` from surface `by`; see the module header. */
  async answer(id: string, answer: DecisionAnswer, by: Exclude<Surface, 'editor'>): Promise<DecideResult> {
    const entry = this.#open.get(id);
    if (!entry || entry.spec.expiresAt <= this.#now()) {
      const settled = this.#settled.get(id);
      return settled ? { ok: false, code: 'ALREADY_DECIDED', by: settled.by } : { ok: false, code: 'NOT_PENDING' };
    }
    if (!entry.spec.surfaces.includes(by)) return { ok: false, code: 'NOT_OFFERED' };
    if (!entry.spec.offers.includes(answer.kind)) return { ok: false, code: 'INVALID_ANSWER' };
    const parts = entry.claims.flatMap((c, i) => (c === null ? [i] : []));
    const claim = this.#claim(entry, by, parts);
    if (!claim.won) return claim.by === null ? { ok: false, code: 'NOT_PENDING' } : { ok: false, code: 'ALREADY_DECIDED', by: claim.by };
    try {
      return { ok: true, said: await entry.spec.onAnswer(answer, by, parts) };
    } catch {
      // The answer is settled; only making it so failed, and nothing was applied.
      return { ok: true, said: 'not_applied' };
    }
  }

  /** The entries answerable on `surface` now, oldest first, as the wire publishes them. */
  list(surface: Surface): WireDecision[] {
    const now = this.#now();
    return [...this.#open.values()]
      .filter((e) => e.spec.surfaces.includes(surface) && e.spec.expiresAt > now)
      .map((e) => wireOf(e));
  }

  /** The decisions answerable on `surface` that were settled lately (KEPT_MS), newest first, with where. */
  settled(surface: Surface): { id: string; by: Surface }[] {
    const now = this.#now();
    return [...this.#settled.entries()]
      .filter(([, s]) => s.surfaces.includes(surface) && now - s.at <= KEPT_MS)
      .reverse()
      .map(([id, s]) => ({ id, by: s.by }));
  }

  /** How many decisions wait now, wherever they may be answered. */
  count(): number {
    const now = this.#now();
    return [...this.#open.values()].filter((e) => e.spec.expiresAt > now).length;
  }

  /** Calls `listener` after every change of what is pending or where it can be answered; returns the unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Claims the open `parts` of `entry` for `by`: all of them, or lost to whoever claimed one first. */
  #claim(entry: Entry, by: Surface, parts: readonly number[]): Claim {
    const earlier = parts.map((p) => entry.claims[p]).find((c) => c !== null);
    if (!this.#open.has(entry.id) || parts.length === 0 || earlier !== undefined) {
      return { won: false, by: earlier ?? this.#settled.get(entry.id)?.by ?? null };
    }
    for (const p of parts) entry.claims[p] = by;
    entry.latest = by;
    if (entry.claims.every((c) => c !== null)) this.#settle(entry, by);
    this.#changed();
    return { won: true };
  }

  #settle(entry: Entry, by: Surface): void {
    this.#open.delete(entry.id);
    const now = this.#now();
    this.#settled.set(entry.id, { by, at: now, surfaces: entry.spec.surfaces });
    for (const [id, s] of this.#settled) {
      if (now - s.at <= KEPT_MS && this.#settled.size <= KEPT) break;
      this.#settled.delete(id);
    }
  }

  #close(entry: Entry): void {
    if (!this.#open.delete(entry.id)) return;
    // Some parts decided, the others not (a review of several files that expired): it counts as decided where it was.
    if (entry.latest) this.#settled.set(entry.id, { by: entry.latest, at: this.#now(), surfaces: entry.spec.surfaces });
    this.#changed();
  }

  #changed(): void {
    for (const listener of this.#listeners) listener();
  }
}

/**
 * `text` within `max` UTF-16 code units (what the wire's schema counts), cut at a code point with
 * an ellipsis when longer: a decision the Hub would refuse would keep every other one off the page.
 */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  let out = '';
  for (const char of text) {
    if (out.length + char.length > max - 1) break;
    out += char;
  }
  return `${out}…`;
}

/** An entry as the wire publishes it: the parts still open only. */
function wireOf(entry: Entry): WireDecision {
  const { spec } = entry;
  const open = spec.sections.filter((_, i) => entry.claims[i] === null);
  return {
    id: entry.id,
    kind: spec.kind,
    editor: spec.editor,
    editor_name: spec.editorName,
    client: cut(spec.client, DECISION_LIMITS.maxClientChars),
    tool: spec.tool,
    klass: spec.klass,
    paths: [...spec.paths],
    sections: open.map((s) => ({ ...s, lines: s.lines === null ? null : [...s.lines] })),
    offers: [...spec.offers],
    expires_at: new Date(spec.expiresAt).toISOString(),
  };
}
