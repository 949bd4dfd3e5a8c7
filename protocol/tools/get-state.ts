/**
 * get_state: everything get_state_brief says, plus every window (with visible range, closed folds
 * and indent settings), tabs, lowercase marks, the visual selection, a diagnostics summary and
 * vimrelay's own decorations (PROTOCOL.md "Tools").
 */
import { z } from 'zod';
import { LIMITS } from '../limits.ts';
import { defineTool, READ_ONLY } from '../tool.ts';
import { BufferId, editorArg, Position } from './common.ts';
import { DecorationColor, DecorationId } from './decorations.ts';
import { SeverityCounts } from './get-diagnostics.ts';
import { StateBrief, WindowSummary } from './get-state-brief.ts';

/** Caps on get_state's lists (buffers, modified buffers and terminals: LIMITS.stateMaxBuffers). */
export const STATE_LIMITS = {
  windows: 50,
  tabs: 50,
  /** Closed folds listed per window. */
  foldsPerWindow: 50,
  marks: 100,
  decorations: 100,
  /** Buffers in the diagnostics summary. */
  diagnosticBuffers: 50,
  /** Virtual text of a decoration is cut at this many bytes. */
  decorationTextBytes: 500,
} as const;

const Indent = z
  .object({
    expandtab: z.boolean().describe('Indent with spaces.'),
    tabstop: z.number().int().positive(),
    shiftwidth: z.number().int().nonnegative().describe('Effective: 0 (use tabstop) is resolved.'),
    softtabstop: z.number().int().nonnegative().describe('Effective: a negative value (use shiftwidth) is resolved; 0 means off.'),
  })
  .describe('Indent settings of the window\'s buffer.');

const Fold = z.object({ start_line: z.number().int().positive(), end_line: z.number().int().positive() });

const WindowState = WindowSummary.extend({
  role: z.enum(['active', 'alternate', 'other']),
  tab: z.number().int().positive().describe('Tab page number (1-based) the window is in.'),
  floating: z.boolean(),
  width: z.number().int().nonnegative(),
  height: z.number().int().nonnegative(),
  top_line: z.number().int().positive().describe('First buffer line shown.'),
  bottom_line: z.number().int().positive().describe('Last buffer line shown.'),
  folds: z.array(Fold).describe(`Closed folds (text the user sees collapsed), at most ${STATE_LIMITS.foldsPerWindow}.`),
  folds_truncated: z.boolean(),
  indent: Indent,
});

const Tab = z.object({
  tab: z.number().int().positive().describe('Tab page number, 1-based.'),
  current: z.boolean(),
  windows: z.array(z.number().int().positive()).describe('Window ids in the tab.'),
});

const Mark = z.object({
  mark: z.string().describe('The mark\'s letter, a-z.'),
  ...BufferId,
  line: z.number().int().positive(),
  col: z.number().int().positive(),
});

const Selection = z
  .object({
    kind: z.enum(['char', 'line', 'block']),
    ...BufferId,
    start: Position,
    end: Position.describe('Inclusive. For a block selection, start and end are two opposite corners.'),
  })
  .describe('The visual (or select) mode selection; null in other modes.');

const DiagnosticsSummary = SeverityCounts.extend({
  buffers: z.array(z.object({ ...BufferId, ...SeverityCounts.shape })).describe('Buffers that have diagnostics, by number.'),
  buffers_truncated: z.boolean(),
}).describe('Diagnostic counts, in total and per buffer; get_diagnostics lists them. Null when the editor has no diagnostics support.');

const Decoration = z.object({
  id: DecorationId,
  ...BufferId,
  kind: z.enum(['highlight', 'virtual_text']),
  start: Position.describe('Where a highlight starts, or the line virtual text is attached to (col 1 for lines above/below).'),
  end: Position.nullable().describe('Just after a highlight (exclusive); null for virtual text.'),
  text: z.string().nullable().describe(`Virtual text (lines joined with \\n), cut at ${STATE_LIMITS.decorationTextBytes} bytes; null for a highlight.`),
  position: z.string().nullable().describe('Where virtual text shows: eol, above or below (others, e.g. overlay, when set by other means); null for a highlight.'),
  color: DecorationColor.nullable().describe('The color it was added with; null when it is not one of the named colors.'),
});

export const getState = defineTool({
  name: 'get_state',
  title: 'Editor state (full)',
  description:
    'Everything get_state_brief returns, plus: every window (active first, then the alternate, then by tab) with cursor, context, visible lines, closed folds and indent settings; ' +
    'tab pages; lowercase marks; the selection in visual mode; diagnostic counts per buffer; and the decorations added with highlight_range / add_virtual_text. ' +
    `Caps: ${LIMITS.stateMaxBuffers} buffers, ${STATE_LIMITS.windows} windows, ${STATE_LIMITS.tabs} tabs, ${STATE_LIMITS.foldsPerWindow} folds per window, ${STATE_LIMITS.marks} marks, ` +
    `${STATE_LIMITS.decorations} decorations, ${STATE_LIMITS.diagnosticBuffers} buffers in the diagnostics summary, and ${LIMITS.maxResultBytes / 1024} KB in all; ` +
    'each list has a *_truncated flag. Prefer get_state_brief when you only need to orient yourself; use get_diagnostics for the diagnostics themselves and read_buffer for text.',
  permission: 'read',
  routing: 'editor',
  annotations: READ_ONLY,
  input: z.object({ editor: editorArg }).strict(),
  output: StateBrief.extend({
    windows: z.array(WindowState).describe('Active window first, then the alternate one, then the others by tab page and position.'),
    windows_truncated: z.boolean(),
    tabs: z.array(Tab),
    tabs_truncated: z.boolean(),
    marks: z.array(Mark).describe('Lowercase marks of loaded buffers, by buffer and letter.'),
    marks_truncated: z.boolean(),
    selection: Selection.nullable(),
    diagnostics: DiagnosticsSummary.nullable(),
    decorations: z.array(Decoration).describe('vimrelay decorations in loaded buffers, by buffer and position.'),
    decorations_truncated: z.boolean(),
  }),
});
