/**
 * Chunked transfer of long parameters to Vim. Vim's JSON reader is superlinear in the size of one
 * message (6 MB in one message: ~2.5 s; the same in pieces: a fraction of that), so a string
 * parameter longer than VIM_CHUNK_UNITS, or a list of lines longer than that in all, is sent ahead
 * in pieces (`vimrelay#stage(id, piece)`, one message each) and replaced in the tool's parameters
 * by `{vimrelay_staged: id}`, which the plugin's dispatcher joins back before it runs the tool
 * (still inside one Vim function call): a string's pieces are strings, a list's are lists
 * (splitLinePieces). Parameters whose JSON is still longer than that once those are staged (long
 * lists nested in a structure: apply_diff's hunks) are sent ahead whole, as the pieces of their
 * JSON text, and replaced by `{vimrelay_staged_json: id}`, which the plugin decodes first. So no
 * message to Vim is much longer than VIM_CHUNK_UNITS: besides being slow to read, one long message
 * that reaches Vim in parts far apart (a busy machine) is given up by Vim's channel as incomplete,
 * and the call never runs (seen: a 1 MB apply_diff under load, Vim idle with every byte read and
 * the call unanswered at its deadline). Pure: splits values, does no I/O.
 */
import { splitPieces } from '../../pieces.ts';

/** Longest string sent in one message, in UTF-16 code units (at most 3 bytes of UTF-8 each). */
export const VIM_CHUNK_UNITS = 32 * 1024;

/** What a list of lines costs a message beyond its text, per line: its quotes and comma. */
const LINE_UNITS = 3;

/** Parameters ready to send, and the pieces to stage first, in order. */
export interface Staged {
  params: Record<string, unknown>;
  pieces: [id: string, piece: string | string[]][];
}

/**
 * Splits `lines` into lists of about `max` code units (LINE_UNITS a line besides its text), a line
 * longer than that across several, never inside a surrogate pair. The first element of each list
 * but the first continues the last line of the lists before it; so the lines are the first list,
 * each later list's first element appended to the last line so far and its others added after.
 */
export function splitLinePieces(lines: readonly string[], max: number): string[][] {
  const pieces: string[][] = [];
  let done: string[] = [];
  let tail = '';
  let room = max;
  const flush = (): void => {
    pieces.push([...done, tail]);
    [done, tail, room] = [[], '', max];
  };
  lines.forEach((line, i) => {
    if (i > 0) {
      if (room < LINE_UNITS) flush();
      done.push(tail);
      tail = '';
      room -= LINE_UNITS;
    }
    for (const part of splitPieces(line, max)) {
      if (part.length > room) flush();
      tail += part;
      room -= part.length;
    }
  });
  pieces.push([...done, tail]);
  return pieces;
}

/** `value` when it is a list of lines (strings only), else null. */
function linesOf(value: unknown): readonly string[] | null {
  return Array.isArray(value) && value.every((v) => typeof v === 'string') ? (value as string[]) : null;
}

/** The pieces `value` is staged in, or null when it goes in the call itself. */
function piecesOf(value: unknown, max: number): (string | string[])[] | null {
  if (typeof value === 'string') return value.length > max ? splitPieces(value, max) : null;
  const lines = linesOf(value);
  if (lines === null || lines.reduce((n, l) => n + l.length + LINE_UNITS, 0) <= max) return null;
  return splitLinePieces(lines, max);
}

/** Stages every top-level string or list of lines longer than `max`, under ids made by `newId`. */
export function stageParams(params: Record<string, unknown>, newId: () => string, max: number = VIM_CHUNK_UNITS): Staged {
  const out: Record<string, unknown> = {};
  const pieces: [string, string | string[]][] = [];
  for (const [key, value] of Object.entries(params)) {
    const staged = piecesOf(value, max);
    if (staged === null) {
      out[key] = value;
      continue;
    }
    const id = newId();
    for (const piece of staged) pieces.push([id, piece]);
    out[key] = { vimrelay_staged: id };
  }
  return { params: out, pieces };
}

/** `staged`, and its parameters' JSON staged too under an id made by `newId` when longer than `max`. */
export function stageJson(staged: Staged, newId: () => string, max: number = VIM_CHUNK_UNITS): Staged {
  const json = JSON.stringify(staged.params);
  if (json.length <= max) return staged;
  const id = newId();
  return { params: { vimrelay_staged_json: id }, pieces: [...staged.pieces, ...splitPieces(json, max).map((piece): [string, string] => [id, piece])] };
}
