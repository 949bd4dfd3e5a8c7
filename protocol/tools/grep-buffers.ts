/**
 * grep_buffers: search the live text of buffers, one page of hits at a time. The search runs
 * inside the editor; only a page crosses to the agent.
 */
import { z } from 'zod';
import { LIMITS } from '../limits.ts';
import { defineTool, READ_ONLY } from '../tool.ts';
import { BufferId, bufferRef, editorArg, maxResultsArg } from './common.ts';

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
  col: z.number().int().positive().describe('Where the match starts: 1-based, in characters.'),
  end_col: z.number().int().positive().describe('Just after the match (exclusive); equal to col for an empty match.'),
  text: z.string().describe(`The line, or a part of it around the match when the line is longer than ${GREP_LIMITS.lineBytes} bytes.`),
  text_start_col: z.number().int().positive().describe('The column at which `text` starts: 1 unless the line was trimmed.'),
  trimmed: z.boolean().describe('True when `text` is only part of the line; read_buffer returns it whole.'),
});

export const grepBuffers = defineTool({
  name: 'grep_buffers',
  title: 'Search buffers',
  description:
    'Search the live text of the editor\'s buffers, unsaved changes included, for a literal string or a Vim regular expression (mode "regex": Vim\'s own dialect, magic, as in /pattern; ' +
    'e.g. \\< \\> for word bounds, \\( \\) for groups, \\{n,m} for counts). Matches never span lines. Every match is a hit, with its line and 1-based character columns. ' +
    'By default every loaded, listed buffer is searched; pass `buffers` to search others (they are loaded if needed). ' +
    `Returns at most max_results hits (default ${GREP_LIMITS.defaultResults}, up to ${GREP_LIMITS.maxResults}) and at most ${LIMITS.maxResultBytes / 1024} KB; lines longer than ${GREP_LIMITS.lineBytes} bytes are trimmed around the hit. ` +
    'When `truncated` is true, call again with the same arguments and `cursor` to continue after the last hit; ' +
    `a page can hold fewer hits (even none) when cut by size or after scanning ${GREP_LIMITS.scanLines} lines, so follow the cursor until it is null. ` +
    'Case-sensitive unless case_sensitive is false. ' +
    'Use read_buffer to read around a hit, and find_and_replace or substitute to change what you found.',
  permission: 'read',
  routing: 'editor',
  annotations: READ_ONLY,
  input: z
    .object({
      editor: editorArg,
      pattern: z.string().min(1).max(GREP_LIMITS.patternChars).describe('What to find, within one line (no line breaks).'),
      mode: z.enum(['literal', 'regex']).optional().describe('"literal" (default): the exact text; "regex": a Vim regular expression.'),
      case_sensitive: z.boolean().optional().describe('Default true. False ignores case, Unicode letters included.'),
      buffers: z
        .array(bufferRef)
        .min(1)
        .max(GREP_LIMITS.maxBuffers)
        .optional()
        .describe('Buffers (numbers or paths) to search. Default: every loaded, listed buffer.'),
      max_results: maxResultsArg('hits', GREP_LIMITS.defaultResults, GREP_LIMITS.maxResults),
      cursor: GrepCursor.optional().describe('The `cursor` of the previous page, to continue after its last hit.'),
    })
    .strict(),
  output: z.object({
    hits: z.array(GrepHit).describe('In buffer-number order, then by line and column.'),
    truncated: z.boolean().describe('True when there may be more hits: pass `cursor` to continue.'),
    cursor: z.string().nullable().describe('Pass as `cursor`, with the same arguments, for the next page; null when the search is complete.'),
    searched_buffers: z.number().int().nonnegative().describe('How many buffers this search covers.'),
    unloaded_buffers: z
      .number()
      .int()
      .nonnegative()
      .describe('Listed buffers not searched because they are not loaded; name them in `buffers` to search them.'),
  }),
});
