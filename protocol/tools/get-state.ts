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

/** Indent settings of the window's buffer, as they take effect. */
const Indent = z.object({
  expandtab: z.boolean(),
  tabstop: z.number().int().positive(),
  /** 0 (use tabstop) is resolved. */
  shiftwidth: z.number().int().nonnegative().describe('effective'),
  /** A negative value (use shiftwidth) is resolved. */
  softtabstop: z.number().int().nonnegative().describe('effective; 0: off'),
});

const Fold = z.object({ start_line: z.number().int().positive(), end_line: z.number().int().positive() });

const WindowState = WindowSummary.extend({
  role: z.enum(['active', 'alternate', 'other']),
  tab: z.number().int().positive(),
  floating: z.boolean(),
  width: z.number().int().nonnegative(),
  height: z.number().int().nonnegative(),
  /** Null with the cursor (never_read). */
  top_line: z.number().int().positive().nullable(),
  bottom_line: z.number().int().positive().nullable(),
  folds: z.array(Fold).describe('closed'),
  folds_truncated: z.boolean(),
  indent: Indent,
});

const Tab = z.object({
  tab: z.number().int().positive(),
  current: z.boolean(),
  windows: z.array(z.number().int().positive()),
});

const Mark = z.object({
  mark: z.string().describe('a-z'),
  ...BufferId,
  line: z.number().int().positive(),
  col: z.number().int().positive(),
});

const Selection = z.object({
  kind: z.enum(['char', 'line', 'block']),
  ...BufferId,
  start: Position,
  end: Position.describe('inclusive; for a block, the corner opposite start'),
});

/** Diagnostic counts in total and for each buffer that has any, by number. */
const DiagnosticsSummary = SeverityCounts.extend({
  buffers: z.array(z.object({ ...BufferId, ...SeverityCounts.shape })),
  buffers_truncated: z.boolean(),
});

const Decoration = z.object({
  id: DecorationId,
  ...BufferId,
  kind: z.enum(['highlight', 'virtual_text']),
  start: Position.describe('virtual text: its line (col 1 above/below)'),
  end: Position.nullable().describe('null: virtual text'),
  text: z.string().nullable().describe(`virtual text, lines joined by \\n, cut at ${STATE_LIMITS.decorationTextBytes} bytes`),
  /** eol, above or below; others (e.g. overlay) when set by other means. */
  position: z.string().nullable().describe('eol, above, below, ...'),
  color: DecorationColor.nullable().describe('null: not a named color'),
});

export const getState = defineTool({
  name: 'get_state',
  title: 'Editor state (full)',
  description:
    'Everything get_state_brief returns, plus every window (active, alternate, then by tab) with its visible lines, closed folds and indent settings; ' +
    'tab pages; the lowercase marks and decorations (highlight_range, add_virtual_text) of loaded buffers; the visual selection; diagnostic counts. ' +
    `At most ${LIMITS.stateMaxBuffers} buffers, ${STATE_LIMITS.windows} windows, ${STATE_LIMITS.tabs} tabs, ${STATE_LIMITS.foldsPerWindow} folds a window, ${STATE_LIMITS.marks} marks, ` +
    `${STATE_LIMITS.decorations} decorations, ${STATE_LIMITS.diagnosticBuffers} buffers of diagnostics and ${LIMITS.maxResultBytes / 1024} KB; each list has a *_truncated flag. ` +
    'Prefer get_state_brief to orient yourself; get_diagnostics lists the diagnostics.',
  permission: 'read',
  routing: 'editor',
  annotations: READ_ONLY,
  input: z.object({ editor: editorArg }).strict(),
  output: StateBrief.extend({
    windows: z.array(WindowState),
    windows_truncated: z.boolean(),
    tabs: z.array(Tab),
    tabs_truncated: z.boolean(),
    marks: z.array(Mark).describe('By buffer and letter.'),
    marks_truncated: z.boolean(),
    selection: Selection.nullable().describe('Null outside visual and select mode.'),
    diagnostics: DiagnosticsSummary.nullable().describe('Null: no diagnostics support.'),
    decorations: z.array(Decoration).describe('By buffer and position.'),
    decorations_truncated: z.boolean(),
    reviews: z
      .array(z.object({ id: z.string(), buf: z.number().int().positive(), path: z.string().nullable(), shown: z.boolean().describe('in its tab; else waiting for the user to stop typing') }))
      .describe('Reviews of edits waiting for the user\'s decision (review_status gives their outcome).'),
  }),
});
