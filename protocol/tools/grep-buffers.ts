/**
 * grep_buffers: search the live text of buffers, one page of hits at a time. The search runs
 * inside the editor; only a page crosses to the agent.
 */
import { z } from 'zod';
import { LIMITS } from '../limits.ts';
import { defineTool, READ_ONLY } from '../tool.ts';
import { BufferId, bufferRef, editorArg, maxResultsArg, withoutNul } from './common.ts';

/** Caps of grep_buffers. */
export const GREP_LIMITS = {
  /** Hits per page by default, and the most `max_results` may ask for. */
  defaultResults: 100,
  maxResults: 500,
  /** Buffers one call may name in `buffers`. */
  maxBuffers: 100,
  /** A hit's line is returned whole up to this many bytes; longer lines are trimmed around the hit. */
  lineBytes: 400,
  /** Bytes of a trimmed line kept before the hit. */
  trimContextBytes: 100,
  /** Lines one call scans before it returns a page (possibly short) with a cursor. */
  scanLines: 2_000_000,
  /** Longest pattern, in characters. */
  patternChars: 1_000,
} as const;

/** A continuation as grep_buffers hands it out: `<buf>:<line>:<byte>`, where the search resumes. */
const GrepCursor = z.string().regex(/^\d+:\d+:\d+$/, 'not a cursor returned by grep_buffers');

export const GrepHit = z.object({
  ...BufferId,
  line: z.number().int().positive(),
  col: z.number().int().positive(),
  end_col: z.number().int().positive().describe('col for an empty match'),
  text: z.string().describe('the line, or the part around the match'),
  text_start_col: z.number().int().positive().describe('the column text starts at'),
  trimmed: z.boolean().describe('text is part of a long line'),
});

export const grepBuffers = defineTool({
  name: 'grep_buffers',
  title: 'Search buffers',
  description:
    'Search the live text of buffers, unsaved changes included, for a literal string or (mode regex) a magic Vim regular expression ' +
    '(\\< \\> word bounds, \\( \\) groups, \\{n,m} counts); matches never span lines. ' +
    `At most max_results hits (default ${GREP_LIMITS.defaultResults}, up to ${GREP_LIMITS.maxResults}) and ${LIMITS.maxResultBytes / 1024} KB; ` +
    `lines over ${GREP_LIMITS.lineBytes} bytes are trimmed around the hit. When \`truncated\`, pass \`cursor\` with the same arguments and follow it until null: ` +
    'a page may hold few hits or none. Then read_buffer around a hit, or change it with find_and_replace or substitute.',
  permission: 'read',
  routing: 'editor',
  annotations: READ_ONLY,
  input: z
    .object({
      editor: editorArg,
      pattern: withoutNul(z.string().min(1).max(GREP_LIMITS.patternChars), 'the pattern must not contain a NUL character: in mode regex, \\%x00 matches one').describe(
        'What to find, within one line.',
      ),
      mode: z.enum(['literal', 'regex']).optional().describe('How pattern reads; default literal.'),
      case_sensitive: z.boolean().optional().describe('Default true; false ignores case, Unicode letters included.'),
      buffers: z
        .array(bufferRef)
        .min(1)
        .max(GREP_LIMITS.maxBuffers)
        .optional()
        .describe('Numbers or paths, loaded if needed. Default: every loaded, listed buffer.'),
      max_results: maxResultsArg('Hits', GREP_LIMITS.maxResults),
      cursor: GrepCursor.optional().describe('The previous page\'s cursor.'),
    })
    .strict(),
  output: z.object({
    hits: z.array(GrepHit).describe('By buffer number, line and column.'),
    truncated: z.boolean().describe('more may follow: pass cursor'),
    cursor: z.string().nullable().describe('for the next page; null: done'),
    searched_buffers: z.number().int().nonnegative().describe('buffers searched'),
    unloaded_buffers: z.number().int().nonnegative().describe('Listed buffers not searched, not being loaded: name them in `buffers`.'),
  }),
});
