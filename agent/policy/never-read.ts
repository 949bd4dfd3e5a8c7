/**
 * `never_read` (README "Permissions"): the content of files matching the policy's `never_read`
 * globs is never returned and never edited, whichever tool would leak it, nor anything of their
 * size or shape. It protects files, not names (`neverReadMatch`): a file matches when its
 * absolute name or its real path (Editor.paths gives both) matches a glob, in either case
 * (glob.ts: a glob without `/` matches the basename; `*.pem` covers `SERVER.PEM`), or when it is
 * a regular file with more than one hard link: its device and inode may be a never_read file's
 * under another name in any directory, and nobody can list a file's other names, so such a file
 * counts as never_read too (an empty never_read list turns this off with the rest). What each
 * tool's call gets is in its record (editors/tools/tool.ts `neverRead`).
 * vimrelay's own files (own-files.ts: its credentials, tokens, policy, logs, a relay checkout's
 * secrets) are matched first and withheld wherever never_read files are, whatever the globs say
 * (`[]` included); a call that names one (NAMES_ONE_FILE: open_file too) is refused as well, with
 * `own_file` instead of `glob`, audited `own_file`.
 *
 * Before a call (`neverReadBefore`, on the paths the call addresses): a tool whose record
 * `refuses` (reads, edits, saves; commands and keys, which act on the current buffer:
 * `%print`, `ggyG`...; decorations and cursor moves, whose answers and errors tell line counts
 * and lengths) is refused PERMISSION_DENIED, naming never_read and the glob (or the hard links),
 * when it addresses such a file; the others (open_file, terminal text, clearing decorations, a
 * search over every buffer) run.
 * After a call (`after`, on its outcome, before it leaves the agent), by the record's `filter`:
 * - `grep_hits`: hits in such buffers are dropped, and a page that stopped inside one goes on past
 *   it (the agent searches on itself), so neither the hits nor where a page stops tell anything
 *   of that buffer's text;
 * - `state`: windows showing such a buffer lose their cursor, context lines and view, the buffer
 *   its line_count and changedtick, and its marks, decorations and a selection in it go, and so
 *   does its line in the diagnostics summary (get_state), whose counts leave such buffers out as
 *   get_diagnostics' do (below);
 * - `shape`: open_file's total_lines and changedtick are null when the file is never_read;
 * - `diagnostics`: the diagnostics of such buffers are dropped from the result (their messages
 *   can quote the text);
 * - `locations`: items of the result's lists whose `path` is such a file are dropped (with their
 *   context lines, reference texts or old text), and `withheld` counts what was dropped: one per
 *   location or symbol, one per reference or edit of a file group;
 * - `command_output`: any line of the result (output, error, errmsg) that contains a line of at
 *   least REDACT_MIN_CHARS characters of a loaded such buffer, or is itself such a part of one,
 *   becomes `[withheld: never_read]`. The agent reads those lines itself before the call to
 *   compare them; they never leave it.
 * A call whose record `countsDiagnostics` (over every buffer: get_diagnostics, get_state's
 * summary) is told before it runs which files to leave out (`withheldPaths`: the never_read ones
 * among the buffers with diagnostics), so that its counts, totals and pages are as if they had
 * none, the buffers beyond those it lists too.
 * An outcome that cannot be filtered (the editor stopped answering) becomes INTERNAL: it is never
 * returned unfiltered. A grep_buffers page that went on past never_read buffers stays within one
 * page's caps (hits and bytes).
 * Limits: exec tools run arbitrary Vimscript, so this only narrows what they can leak: a command
 * can still print a never_read file that no buffer holds (`readfile()`), print a buffer's text
 * transformed (`toupper()`) or in pieces shorter than REDACT_MIN_CHARS, copy it elsewhere, or edit
 * a buffer it does not make current. That is why exec calls are "ask" by default.
 */
import { stat } from 'node:fs/promises';
import { fail, GREP_LIMITS, SEVERITIES, type ToolOutcome } from '../../protocol/index.ts';
import { EditorBlocked } from '../editors/blocked.ts';
import { EditorGone, type CallControl } from '../editors/call.ts';
import type { Editor } from '../editors/editor.ts';
import { LIST_BUDGET_BYTES } from '../editors/tools/budget.ts';
import { grepBuffersTool, readBufferTool } from '../editors/tools/index.ts';
import type { Addressing, EditorTool } from '../editors/tools/tool.ts';
import { matchesGlob } from './glob.ts';
import { ownRefusal, type OwnFiles, type OwnHit } from './own-files.ts';

/** What never_read needs of an editor: the paths a call addresses, and tools it runs for itself. */
export type NeverReadEditor = Pick<Editor, 'paths' | 'run'>;

/** What tells the files whose content is withheld: vimrelay's own files, then the policy's never_read globs. */
export interface SecretRules {
  /** vimrelay's own files (own-files.ts), whatever the globs say. */
  own: OwnFiles;
  /** The policy's never_read globs. */
  globs: readonly string[];
  /** The home directory `~/` in a glob stands for. */
  home?: string;
}

/** One call as never_read sees it. */
export interface NeverReadCall extends SecretRules {
  editor: NeverReadEditor;
  tool: EditorTool;
  /** Its arguments, validated. */
  args: Record<string, unknown>;
  /** `Editor.paths` of this call. */
  paths: readonly string[];
}

/** The verdict before a call: a refusal (of a never_read file, or of one of vimrelay's own), or the filter its outcome must go through. */
export type NeverReadCheck =
  | { readonly refusal: ToolOutcome; readonly decision: 'never_read' | 'own_file' }
  | {
      readonly refusal: null;
      after(outcome: ToolOutcome, call: CallControl): Promise<ToolOutcome>;
      /** What the call must leave out when it runs (CallControl.withheldPaths). */
      readonly withheldPaths?: readonly string[];
    };

/** Lines shorter than this (after trimming) are too common to be told apart from other output. */
export const REDACT_MIN_CHARS = 6;

/** What replaces an output line that would show a never_read buffer's text. */
export const WITHHELD = '[withheld: never_read]';

/** Most pages of one never_read buffer the agent reads to redact command output. */
const REDACT_READ_PAGES = 100;

/** Why a file is withheld: one of vimrelay's own files, a glob its name matches, or the hard links it has. */
export type NeverReadHit = OwnHit | { readonly path: string; readonly glob: string } | { readonly path: string; readonly links: number };

/**
 * Addressings by which a call names one file (tools/tool.ts): such a call is refused for one of
 * vimrelay's own files even when its record lets it run for a never_read one (open_file,
 * clear_decorations, a symbol query from that buffer). Searches over every buffer and state
 * tools leave those files out of their results instead, and terminal text goes to a terminal.
 */
const NAMES_ONE_FILE: ReadonlySet<Addressing> = new Set(['buffer', 'path', 'window_buffer']);

/** The first never_read glob one of `paths` matches (in either case), or null. */
function neverReadGlob(paths: readonly string[], globs: readonly string[], home?: string): { glob: string; path: string } | null {
  for (const path of paths) {
    for (const glob of globs) if (matchesGlob(glob, path, { ignoreCase: true, ...(home === undefined ? {} : { home }) })) return { glob, path };
  }
  return null;
}

/**
 * Whether one of `paths` is a never_read file (see the module header): by a glob on its name, else
 * by its hard links (stat: what a symlink names; a path that is no file is judged by name only).
 */
export async function neverReadMatch(paths: readonly string[], globs: readonly string[], home?: string): Promise<NeverReadHit | null> {
  const byName = neverReadGlob(paths, globs, home);
  if (byName || globs.length === 0) return byName;
  for (const path of paths) {
    const links = await linksOf(path);
    if (links > 1) return { path, links };
  }
  return null;
}

/** The hard links of the regular file at `path`; 0 for anything else, or nothing. */
async function linksOf(path: string): Promise<number> {
  try {
    const s = await stat(path);
    return s.isFile() ? s.nlink : 0;
  } catch {
    return 0;
  }
}

/** Whether one of `paths` is one of vimrelay's own files, else a never_read file (neverReadMatch), and why. */
export async function secretMatch(paths: readonly string[], rules: SecretRules): Promise<NeverReadHit | null> {
  return (await rules.own.match(paths)) ?? (await neverReadMatch(paths, rules.globs, rules.home));
}

/** Checks `call` before it runs; see the module header. Rejects only when the editor cannot answer. */
export async function neverReadBefore(call: NeverReadCall, control: CallControl): Promise<NeverReadCheck> {
  const hit = await secretMatch(call.paths, call);
  if (hit && 'own' in hit && (call.tool.neverRead.refuses(call.args) || NAMES_ONE_FILE.has(call.tool.addresses(call.args)))) return { refusal: refusal(call, hit), decision: 'own_file' };
  if (hit && call.tool.neverRead.refuses(call.args)) return { refusal: refusal(call, hit), decision: 'never_read' };
  const filter = call.tool.neverRead.filter;
  const secrets = filter === 'command_output' ? await secretLines(call, control) : null;
  const withheldPaths = call.tool.neverRead.countsDiagnostics && call.paths.length === 0 ? await diagnosedSecrets(call, control) : [];
  const withheld = bufferCheck(call);
  return {
    refusal: null,
    ...(withheldPaths.length > 0 ? { withheldPaths } : {}),
    after: async (outcome, after) => {
      try {
        return await filtered(call, outcome, secrets, withheld, hit !== null, after);
      } catch (err) {
        // Fail closed: an outcome that could not be filtered is not returned at all.
        return fail('INTERNAL', `The agent could not apply never_read to the result of ${call.tool.spec.name}, so it withholds it: ${String(err)}`);
      }
    },
  };
}

/** The outcome as it may leave the agent; rejects when the editor cannot say which buffers to withhold. */
async function filtered(call: NeverReadCall, outcome: ToolOutcome, secrets: readonly string[] | null, withheld: BufferCheck, addressed: boolean, control: CallControl): Promise<ToolOutcome> {
  if (secrets) return redactOutcome(outcome, secrets);
  if (!outcome.ok) return outcome;
  const { signal } = control;
  switch (call.tool.neverRead.filter) {
    case 'grep_hits':
      return filterGrep(call, outcome.data, withheld, control);
    case 'state':
      return { ok: true, data: await withoutContext(outcome.data, withheld, signal) };
    case 'shape':
      return addressed ? { ok: true, data: { ...outcome.data, total_lines: null, changedtick: null } } : outcome;
    case 'diagnostics':
      return { ok: true, data: { ...outcome.data, diagnostics: await keptOf(outcome.data.diagnostics, withheld, signal) } };
    case 'locations':
      return { ok: true, data: await withoutLocations(call, outcome.data, signal) };
    case 'command_output':
    case undefined:
      return outcome;
  }
}

/** `data` without the list items that point into never_read files, counted in `withheld`. */
async function withoutLocations(call: NeverReadCall, data: Record<string, unknown>, signal: AbortSignal): Promise<Record<string, unknown>> {
  const verdicts = new Map<string, Promise<boolean>>();
  const isSecret = (path: string): Promise<boolean> => {
    let verdict = verdicts.get(path);
    if (!verdict) {
      verdict = call.editor.paths('path', { path }, signal).then(async (paths) => (await secretMatch(paths, call)) !== null);
      verdicts.set(path, verdict);
    }
    return verdict;
  };
  // What one dropped item counts for: a file group's references or edits, else itself.
  const weight = (item: Record<string, unknown>): number => (Array.isArray(item.references) ? item.references.length : Array.isArray(item.edits) ? item.edits.length : 1);
  let withheld = typeof data.withheld === 'number' ? data.withheld : 0;
  const out: Record<string, unknown> = { ...data };
  for (const [key, value] of Object.entries(data)) {
    if (!Array.isArray(value)) continue;
    const kept: unknown[] = [];
    for (const item of value as unknown[]) {
      const path = typeof item === 'object' && item !== null ? (item as { path?: unknown }).path : undefined;
      if (typeof path === 'string' && (await isSecret(path))) withheld += weight(item as Record<string, unknown>);
      else kept.push(item);
    }
    out[key] = kept;
  }
  return { ...out, withheld };
}

function refusal(call: NeverReadCall, hit: NeverReadHit): ToolOutcome {
  const tool = call.tool.spec.name;
  const why = call.tool.addresses(call.args) === 'current' ? `${tool} is refused while it is the current buffer` : `${tool} is refused for it`;
  return neverReadRefusal(hit, why, 'This file\'s content is never returned nor edited; the user can change never_read in policy.json.');
}

/**
 * PERMISSION_DENIED for a never_read file: what matched (the glob, or the hard links), then `why`,
 * and `hint`; for one of vimrelay's own files, own-files.ts's refusal, whose hint stands whatever `hint` says.
 */
export function neverReadRefusal(hit: NeverReadHit, why: string, hint: string): ToolOutcome {
  if ('own' in hit) return ownRefusal(hit, why);
  if ('glob' in hit) return fail('PERMISSION_DENIED', `${hit.path} matches the never_read glob "${hit.glob}": ${why}.`, { glob: hit.glob, hint });
  return fail('PERMISSION_DENIED', `${hit.path} has ${hit.links} hard links, so it may be a never_read file under another name: ${why}.`, { hard_links: hit.links, hint });
}

type BufferCheck = (buf: number, signal: AbortSignal) => Promise<boolean>;

/** Whether a buffer (by number) is a never_read file, asked of the editor once per buffer. */
function bufferCheck(call: NeverReadCall): BufferCheck {
  const known = new Map<number, Promise<boolean>>();
  return (buf, signal) => {
    let answer = known.get(buf);
    if (!answer) {
      answer = call.editor.paths('buffer', { buffer: buf }, signal).then(async (paths) => (await secretMatch(paths, call)) !== null);
      known.set(buf, answer);
    }
    return answer;
  };
}

async function keptOf(items: unknown, withheld: BufferCheck, signal: AbortSignal): Promise<unknown[]> {
  const kept: unknown[] = [];
  for (const item of Array.isArray(items) ? items : []) {
    const buf = (item as { buf?: unknown }).buf;
    if (typeof buf !== 'number' || !(await withheld(buf, signal))) kept.push(item);
  }
  return kept;
}

/** Window fields that tell where in its buffer a window is (get_state adds the view and folds). */
const WINDOW_PLACE = { cursor: null, context: null } as const;
const VIEW_PLACE = { top_line: null, bottom_line: null, folds: [], folds_truncated: false } as const;

/**
 * A state result that tells nothing of what is in never_read buffers nor of their shape: windows
 * showing one keep their buffer but lose their cursor, context and view; those buffers lose their
 * line_count and changedtick; their marks, decorations and a selection in one are dropped.
 */
async function withoutContext(data: Record<string, unknown>, withheld: BufferCheck, signal: AbortSignal): Promise<Record<string, unknown>> {
  const secret = async (item: unknown): Promise<boolean> => {
    const buf = (item as { buf?: unknown } | null)?.buf;
    return typeof buf === 'number' && (await withheld(buf, signal));
  };
  const list = (key: string): Record<string, unknown>[] => (Array.isArray(data[key]) ? (data[key] as Record<string, unknown>[]) : []);
  const out: Record<string, unknown> = { ...data };
  const windows: unknown[] = [];
  for (const w of list('windows')) windows.push((await secret(w)) ? { ...w, ...WINDOW_PLACE, ...('top_line' in w ? VIEW_PLACE : {}) } : w);
  out.windows = windows;
  if (Array.isArray(data.buffers)) {
    const buffers: unknown[] = [];
    for (const b of list('buffers')) buffers.push((await secret(b)) ? { ...b, line_count: null, changedtick: null } : b);
    out.buffers = buffers;
  }
  for (const key of ['marks', 'decorations']) if (Array.isArray(data[key])) out[key] = await keptOf(data[key], withheld, signal);
  if (await secret(data.selection)) out.selection = null;
  const summary = data.diagnostics;
  if (typeof summary === 'object' && summary !== null && Array.isArray((summary as { buffers?: unknown }).buffers)) out.diagnostics = await summaryWithout(summary as Record<string, unknown>, secret);
  return out;
}

/** A diagnostics summary (get_state) without the buffers `secret` says are never_read: their lines go, and their counts leave the totals. */
async function summaryWithout(summary: Record<string, unknown>, secret: (item: unknown) => Promise<boolean>): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = { ...summary };
  const kept: unknown[] = [];
  for (const line of summary.buffers as unknown[]) {
    if (!(await secret(line))) {
      kept.push(line);
      continue;
    }
    for (const severity of SEVERITIES) {
      const count = (line as Record<string, unknown>)[severity];
      if (typeof out[severity] === 'number' && typeof count === 'number') out[severity] = Math.max(0, (out[severity] as number) - count);
    }
  }
  out.buffers = kept;
  return out;
}

/** The buffer number of a grep_buffers cursor (`<buf>:<line>:<byte>`), or null. */
function cursorBuf(cursor: unknown): number | null {
  const m = typeof cursor === 'string' ? /^(\d+):\d+:\d+$/.exec(cursor) : null;
  return m ? Number(m[1]) : null;
}

/** A grep hit as filterGrep needs it. */
interface HitPlace {
  buf: number;
  line: number;
}

/** The cursor at which a search finds first the first hit of `hit`'s line. */
const lineCursor = (hit: HitPlace): string => `${hit.buf}:${hit.line}:0`;

/**
 * grep_buffers without its never_read hits. Where a page stopped inside a never_read buffer, the
 * agent searches on from the next buffer (as many hits as the page still has room for), so the
 * page the model sees is the one a search without that buffer would give; when the page is full
 * (in hits, or in bytes: LIST_BUDGET_BYTES, as the editors count them), the cursor is placed at
 * the line of the first hit not returned, whose hits are then all left to the next page (a search
 * resumed at the start of a line finds its first hit first). Pages the agent searches on from
 * always start at a buffer's first line, so a line's hits never straddle two of them.
 */
async function filterGrep(call: NeverReadCall, first: Record<string, unknown>, withheld: BufferCheck, control: CallControl): Promise<ToolOutcome> {
  const { signal } = control;
  const max = typeof call.args.max_results === 'number' ? call.args.max_results : GREP_LIMITS.defaultResults;
  const hits: HitPlace[] = [];
  let bytes = 0;
  let page = first;
  let continued = false;
  for (;;) {
    const kept = (await keptOf(page.hits, withheld, signal)) as HitPlace[];
    const pageStart = hits.length;
    for (const hit of kept) {
      const size = Buffer.byteLength(JSON.stringify(hit)) + 1;
      if (continued && (hits.length >= max || bytes + size > LIST_BUDGET_BYTES)) {
        while (hits.length > pageStart && hits[hits.length - 1]?.buf === hit.buf && hits[hits.length - 1]?.line === hit.line) hits.pop();
        return { ok: true, data: { ...first, hits, truncated: true, cursor: lineCursor(hit) } };
      }
      hits.push(hit);
      bytes += size;
    }
    const buf = cursorBuf(page.cursor);
    if (buf === null || !(await withheld(buf, signal))) {
      return { ok: true, data: { ...first, hits, truncated: page.truncated, cursor: page.cursor } };
    }
    // With the page full, one more hit is looked for only to place the cursor.
    const room = Math.max(1, max - hits.length);
    const next = await call.editor.run(grepBuffersTool, { ...call.args, cursor: `${buf + 1}:1:0`, max_results: room }, control);
    if (!next.ok) return next;
    page = next.data;
    continued = true;
  }
}

/** The never_read files among those of the buffers with diagnostics (both names of each that is). */
async function diagnosedSecrets(call: NeverReadCall, control: CallControl): Promise<string[]> {
  let diagnosed: string[];
  try {
    diagnosed = await call.editor.paths('diagnosed', {}, control.signal);
  } catch (error) {
    // A Vim plugin older than this agent cannot list them: the counts include them, as they did
    // then; their diagnostics are dropped from the result either way (filtered).
    if (error instanceof EditorGone || error instanceof EditorBlocked || control.signal.aborted) throw error;
    return [];
  }
  const secret: string[] = [];
  for (const path of diagnosed) if (await secretMatch([path], call)) secret.push(path);
  return secret;
}

/** The trimmed lines of at least REDACT_MIN_CHARS characters of every loaded never_read buffer. */
async function secretLines(call: NeverReadCall, control: CallControl): Promise<string[]> {
  const loaded = await call.editor.paths('buffers_or_loaded', {}, control.signal);
  const lines = new Set<string>();
  const seen = new Set<number>();
  for (const path of loaded) {
    if (!(await secretMatch([path], call))) continue;
    let start: number | null = 1;
    for (let page = 0; start !== null && page < REDACT_READ_PAGES; page++) {
      const read = await call.editor.run(readBufferTool, { buffer: path, start_line: start }, control);
      if (!read.ok) throw new Error(`cannot read a never_read buffer to redact command output: ${read.error.message}`);
      const buf = read.data.buf as number;
      if (page === 0 && seen.has(buf)) break;
      seen.add(buf);
      for (const line of read.data.lines as string[]) {
        const t = line.trim();
        if ([...t].length >= REDACT_MIN_CHARS) lines.add(t);
      }
      start = read.data.next_start_line as number | null;
    }
  }
  return [...lines];
}

/** `outcome` with every string's lines that show a secret line replaced by WITHHELD. */
function redactOutcome(outcome: ToolOutcome, secrets: readonly string[]): ToolOutcome {
  if (secrets.length === 0) return outcome;
  const redactText = (text: string): string =>
    text
      .split('\n')
      .map((line) => {
        const t = line.trim();
        const shows = secrets.some((s) => line.includes(s) || ([...t].length >= REDACT_MIN_CHARS && s.includes(t)));
        return shows ? WITHHELD : line;
      })
      .join('\n');
  const walk = (value: unknown): unknown => {
    if (typeof value === 'string') return redactText(value);
    if (Array.isArray(value)) return value.map(walk);
    if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v)]));
    return value;
  };
  return walk(outcome) as ToolOutcome;
}
