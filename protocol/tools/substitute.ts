/**
 * substitute: Vim's :substitute over a line range of one buffer, with the number of replacements.
 * The pattern never goes through Ex parsing (the editor hands it over as the last search pattern
 * and puts the user's back), so any Vim regex is safe to pass.
 */
import { z } from 'zod';
import { CHANGES_TEXT, defineTool } from '../tool.ts';
import { OneBufferReview, reviewArg, reviewTimeoutArg } from './review.ts';
import { BufferId, changedtickArg, currentBufferArg, editorArg } from './common.ts';

/** Caps of substitute. */
export const SUBSTITUTE_LIMITS = {
  /** Longest pattern, in characters. */
  patternChars: 1_000,
  /** Longest replacement, in characters. */
  replacementChars: 10_000,
} as const;

/** The flags substitute accepts: the ones that neither prompt (c), print, nor depend on the last :s. */
export const SUBSTITUTE_FLAGS = ['g', 'i', 'I'] as const;

const L = SUBSTITUTE_LIMITS;

/** Characters that would end the command inside the editor; Vim has escapes for them. */
const noRawBreaks = (what: string, escapes: string) =>
  [(s: string) => !/[\n\r\0]/.test(s), `${what} must not contain raw line breaks or NUL characters: ${escapes}`] as const;

/** How many backslashes `s` ends with. */
function trailingBackslashes(s: string): number {
  let n = 0;
  while (s.charAt(s.length - 1 - n) === '\\') n++;
  return n;
}

const pattern = z
  .string()
  .min(1)
  .max(L.patternChars)
  .refine(...noRawBreaks('pattern', 'write \\n to match a line break'));

const replacement = z
  .string()
  .max(L.replacementChars)
  .refine(...noRawBreaks('replacement', 'write \\r (or \\n) to insert a line break'))
  .refine((s) => !s.startsWith('\\='), 'a replacement starting with \\= is a Vim expression, which substitute does not evaluate; use run_command for that')
  .refine((s) => trailingBackslashes(s) % 2 === 0, 'the replacement ends with a lone backslash: write \\\\ for a literal backslash');

const flags = z
  .array(z.enum(SUBSTITUTE_FLAGS))
  .max(SUBSTITUTE_FLAGS.length)
  .refine((f) => new Set(f).size === f.length, 'each flag may be given once')
  .refine((f) => !(f.includes('i') && f.includes('I')), 'flags i and I contradict each other');

export const substitute = defineTool({
  name: 'substitute',
  title: 'Substitute (Vim :s)',
  description:
    'Vim :substitute over start_line..end_line of a buffer, counting the replacements. ' +
    'The pattern is magic, as in :s (\\< \\> word bounds, \\( \\) groups, \\n a line break, \\c \\C case); the replacement takes & \\0 \\1..\\9 ' +
    '\\u \\U \\l \\L \\e, and \\r or \\n for a line break; ~ is literal and \\= refused. ' +
    'Case-sensitive unless flag i (\'ignorecase\', \'smartcase\' and \'gdefault\' do not apply). ' +
    'The user\'s search pattern, history and cursor are kept. For one exact edit use find_and_replace; for a reviewed set of changes, apply_diff.',
  permission: 'write',
  routing: 'editor',
  annotations: CHANGES_TEXT,
  input: z
    .object({
      editor: editorArg,
      buffer: currentBufferArg,
      pattern: pattern.describe('A Vim regular expression.'),
      replacement: replacement.describe('In :s syntax; may be empty, to delete.'),
      flags: flags.optional().describe('g: every match in a line (default: the first of each line); i: ignore case; I: match case.'),
      start_line: z.number().int().positive().optional().describe('First line, 1-based; default 1.'),
      end_line: z.number().int().positive().optional().describe('Last line, inclusive; default: the last.'),
      expected_changedtick: changedtickArg.optional(),
      review: reviewArg,
      timeout_ms: reviewTimeoutArg,
    })
    .strict(),
  output: z.object({
    ...BufferId,
    count: z.number().int().nonnegative().describe('replacements made'),
    changedtick: z.number().int().nonnegative().describe('after the edit: pass to the next one'),
    total_lines: z.number().int().nonnegative(),
    review: OneBufferReview.optional(),
  }),
});
