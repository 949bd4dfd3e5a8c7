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
  col: z.number().int().positive(),
  end_line: z.number().int().positive(),
  end_col: z.number().int().positive(),
  severity: Severity.describe('error is the worst'),
  message: z.string(),
  message_truncated: z.boolean().describe(`cut at ${DIAGNOSTICS_LIMITS.messageBytes} bytes`),
  source: z.string().nullable().describe('who reported it, e.g. the language server'),
  code: z.string().nullable().describe('the source\'s code for it'),
});

export const getDiagnostics = defineTool({
  name: 'get_diagnostics',
  title: 'Diagnostics (LSP errors, warnings)',
  description:
    'List the diagnostics the editor holds (language servers, linters: anything using vim.diagnostic) for one buffer or all, ' +
    'by buffer and position, with the counts per severity. ' +
    `At most max_results (default ${DIAGNOSTICS_LIMITS.defaultResults}, up to ${DIAGNOSTICS_LIMITS.maxResults}) and ${LIMITS.maxResultBytes / 1024} KB: ` +
    'when `truncated`, pass `cursor` with the same arguments. read_buffer shows the lines they point at.',
  permission: 'read',
  routing: 'editor',
  annotations: READ_ONLY,
  input: z
    .object({
      editor: editorArg,
      buffer: bufferRef.optional().describe('Buffer number or file path; default: every buffer.'),
      severity: Severity.optional().describe('Keep only this severity, or also worse ones (severity_match). Default: all.'),
      severity_match: z.enum(['at_least', 'exact']).optional().describe('Default at_least: `severity` and worse (warn: warnings and errors).'),
      max_results: maxResultsArg('Diagnostics', DIAGNOSTICS_LIMITS.maxResults),
      cursor: DiagnosticsCursor.optional().describe('The previous page\'s cursor.'),
    })
    .strict(),
  output: z.object({
    diagnostics: z.array(Diagnostic).describe('by buffer, line, column; ranges 1-based, col in characters, end exclusive'),
    total: z.number().int().nonnegative().describe('Matching buffer and severity, on all pages.'),
    counts: SeverityCounts.describe('Per severity, before the severity filter.'),
    truncated: z.boolean().describe('more follow: pass cursor'),
    cursor: z.string().nullable().describe('for the next page; null: done'),
  }),
});
