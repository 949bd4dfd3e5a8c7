/**
 * get_diagnostics: the diagnostics (LSP or any other vim.diagnostic producer) of one buffer or of
 * all, filtered by severity, one page at a time. Also home of the severity enum get_state uses.
 */
import { z } from 'zod';
import { LIMITS } from '../limits.ts';
import { defineTool, READ_ONLY } from '../tool.ts';
import { BufferId, bufferRef, editorArg, maxResultsArg } from './common.ts';

/** Severities, worst first (Neovim's vim.diagnostic.severity order). */
export const SEVERITIES = ['error', 'warn', 'info', 'hint'] as const;
export const Severity = z.enum(SEVERITIES);
export type Severity = z.infer<typeof Severity>;

/** Counts per severity. */
export const SeverityCounts = z.object({
  error: z.number().int().nonnegative(),
  warn: z.number().int().nonnegative(),
  info: z.number().int().nonnegative(),
  hint: z.number().int().nonnegative(),
});

/** Caps of get_diagnostics. */
export const DIAGNOSTICS_LIMITS = {
  /** Diagnostics per page by default, and the most `max_results` may ask for. */
  defaultResults: 100,
  maxResults: 500,
  /** A message longer than this many bytes is cut (at a character boundary). */
  messageBytes: 4_000,
} as const;

/** A continuation as get_diagnostics hands it out: `<buf>:<line>:<col>:<skip>`. */
const DiagnosticsCursor = z.string().regex(/^\d+:\d+:\d+:\d+$/, 'not a cursor returned by get_diagnostics');

export const Diagnostic = z.object({
  ...BufferId,
  line: z.number().int().positive(),
  col: z.number().int().positive().describe('1-based, in characters.'),
  end_line: z.number().int().positive(),
  end_col: z.number().int().positive().describe('Exclusive: the column just after the range.'),
  severity: Severity,
  message: z.string(),
  message_truncated: z.boolean().describe(`True when the message was cut at ${DIAGNOSTICS_LIMITS.messageBytes} bytes.`),
  source: z.string().nullable().describe('Who reported it (e.g. the language server), when known.'),
  code: z.string().nullable().describe('The diagnostic code, when there is one.'),
});

export const getDiagnostics = defineTool({
  name: 'get_diagnostics',
  title: 'Diagnostics (LSP errors, warnings)',
  description:
    'List the diagnostics the editor holds (from language servers, linters, anything using vim.diagnostic) for one buffer or for all buffers, ' +
    'sorted by buffer number, line and column, with the total count and counts per severity. ' +
    '`severity` filters: with severity_match "at_least" (default) it keeps that severity and worse (warn = warnings and errors); with "exact" only that severity. ' +
    `Returns at most max_results diagnostics (default ${DIAGNOSTICS_LIMITS.defaultResults}, up to ${DIAGNOSTICS_LIMITS.maxResults}) and at most ${LIMITS.maxResultBytes / 1024} KB; ` +
    'when cut short, `truncated` is true: pass `cursor` back, with the same arguments, for the next page. ' +
    `Messages longer than ${DIAGNOSTICS_LIMITS.messageBytes} bytes are cut (message_truncated). ` +
    'Use read_buffer to see the lines a diagnostic points at; get_state gives only the counts.',
  permission: 'read',
  routing: 'editor',
  annotations: READ_ONLY,
  input: z
    .object({
      editor: editorArg,
      buffer: bufferRef.optional().describe('Buffer number or path. Default: every buffer.'),
      severity: Severity.optional().describe('Severity to filter by. Default: all diagnostics.'),
      severity_match: z
        .enum(['at_least', 'exact'])
        .optional()
        .describe('"at_least" (default): `severity` and worse; "exact": only `severity`.'),
      max_results: maxResultsArg('diagnostics', DIAGNOSTICS_LIMITS.defaultResults, DIAGNOSTICS_LIMITS.maxResults),
      cursor: DiagnosticsCursor.optional().describe('The `cursor` of the previous page, to continue after it.'),
    })
    .strict(),
  output: z.object({
    diagnostics: z.array(Diagnostic),
    total: z.number().int().nonnegative().describe('Diagnostics matching buffer and severity, on all pages.'),
    counts: SeverityCounts.describe('Diagnostics per severity in the chosen buffer(s), before the severity filter.'),
    truncated: z.boolean(),
    cursor: z.string().nullable().describe('Pass as `cursor` to get the next page; null when this page is the last.'),
  }),
});
