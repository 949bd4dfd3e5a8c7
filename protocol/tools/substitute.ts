/**
 * substitute: Vim's :substitute over a line range of one buffer, with the number of replacements.
 * The pattern never goes through Ex parsing (the editor hands it over as the last search pattern
 * and puts the user's back), so any Vim regex is safe to pass.
 */
import { z } from 'zod';
import { CHANGES_TEXT, defineTool } from '../tool.ts';
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
    'Replace matches of a Vim regular expression in a range of lines of a live buffer, with Vim :substitute semantics, and get the number of replacements. ' +
    'The pattern is Vim\'s magic dialect as in :s (\\< \\> word bounds, \\( \\) groups, \\n matches a line break, \\c / \\C force case); ' +
    'the replacement may use & or \\0 (the match), \\1..\\9, \\u \\U \\l \\L \\e case changes, and \\r or \\n for a line break; ~ is a literal ~ and \\= expressions are refused. ' +
    'flags: g replaces every match in a line (default: the first of each line), i ignores case, I matches case. Without i or I matching is case-sensitive; ' +
    'the user\'s \'ignorecase\', \'smartcase\' and \'gdefault\' do not apply. ' +
    'Range start_line..end_line (1-based, inclusive; default: the whole buffer), which closed folds do not widen. ' +
    'No match is not an error: count is 0 and nothing changes. The change is one undo step and stays unsaved; the user\'s last search pattern, search history and cursor are left as they were. ' +
    'expected_changedtick is optional; a stale one changes nothing. For one exact edit use find_and_replace; for a reviewed set of changes use apply_diff.',
  permission: 'write',
  routing: 'editor',
  annotations: CHANGES_TEXT,
  input: z
    .object({
      editor: editorArg,
      buffer: currentBufferArg,
      pattern: pattern.describe(`A Vim regular expression (magic), at most ${L.patternChars} characters.`),
      replacement: replacement.describe(`The replacement, Vim :s syntax; may be empty to delete. At most ${L.replacementChars} characters.`),
      flags: flags.optional().describe('Any of "g" (all matches in a line), "i" (ignore case), "I" (match case). Default: none.'),
      start_line: z.number().int().positive().optional().describe('First line, 1-based. Default 1.'),
      end_line: z.number().int().positive().optional().describe('Last line, inclusive. Default: the last line.'),
      expected_changedtick: changedtickArg.optional(),
    })
    .strict(),
  output: z.object({
    ...BufferId,
    count: z.number().int().nonnegative().describe('Replacements made (0 when nothing matched).'),
    changedtick: z.number().int().nonnegative().describe('The buffer\'s changedtick after the call.'),
    total_lines: z.number().int().nonnegative(),
  }),
});
