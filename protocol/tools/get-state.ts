/**
 * get_state: everything get_state_brief says, plus every window (with visible range, closed folds
 * and indent settings), tabs, lowercase marks, the visual selection, a diagnostics summary and
 * vimrelay's own decorations (PROTOCOL.md "Tools").
 */
import { z } from 'zod';
import { LIMITS } from '../limits.ts';
import { defineTool, READ_ONLY } from '../tool.ts';
import { BufferId, editorArg, Position, POSITION_TEXT } from './common.ts';
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
  expandtab: z.boolean().describe('Tab inserts spaces'),
  tabstop: z.number().int().positive().describe('columns a tab shows as'),
  /** 0 (use tabstop) is resolved. */
  shiftwidth: z.number().int().nonnegative().describe('columns of an indent level'),
  /** A negative value (use shiftwidth) is resolved. */
  softtabstop: z.number().int().nonnegative().describe('effective; 0: off'),
});

const Fold = z.object({ start_line: z.number().int().positive().describe('first line, folded up to end_line'), end_line: z.number().int().positive() });

const WindowState = WindowSummary.extend({
  role: z.enum(['active', 'alternate', 'other']).describe('current, previous (:wincmd p), or another'),
  tab: z.number().int().positive().describe('its tab page'),
  floating: z.boolean().describe('a floating window'),
  width: z.number().int().nonnegative().describe('its width in columns'),
  height: z.number().int().nonnegative().describe('in screen lines'),
  /** Null with the cursor (never_read). */
  top_line: z.number().int().positive().nullable().describe('first line shown; null with cursor'),
  bottom_line: z.number().int().positive().nullable().describe('last line shown'),
  folds: z.array(Fold).describe('closed folds'),
  folds_truncated: z.boolean().describe(`more than ${STATE_LIMITS.foldsPerWindow} folds`),
  indent: Indent.describe('indent settings in effect'),
});

const Tab = z.object({
  tab: z.number().int().positive().describe('tab page number'),
  current: z.boolean().describe('the current tab'),
  windows: z.array(z.number().int().positive()).describe('its windows\' ids'),
});

const Mark = z.object({
  mark: z.string().describe('its letter, a-z'),
  ...BufferId,
  line: z.number().int().positive(),
  col: z.number().int().positive(),
});

const Selection = z.object({
  kind: z.enum(['char', 'line', 'block']).describe('v, V or CTRL-V'),
  ...BufferId,
  start: Position.describe(POSITION_TEXT),
  end: Position.describe('inclusive; for a block, the corner opposite start'),
});

/** Diagnostic counts in total and for each buffer that has any, by number. */
const DiagnosticsSummary = SeverityCounts.extend({
  buffers: z.array(z.object({ ...BufferId, ...SeverityCounts.shape })).describe('counts of each buffer that has any'),
  buffers_truncated: z.boolean().describe(`more than ${STATE_LIMITS.diagnosticBuffers} buffers`),
});

const Decoration = z.object({
  id: DecorationId.describe('for clear_decorations'),
  ...BufferId,
  kind: z.enum(['highlight', 'virtual_text']).describe('highlight_range or add_virtual_text'),
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
    'Everything get_state_brief returns, plus every window with its visible lines, closed folds and indent settings; tab pages; lowercase marks; ' +
    'decorations (highlight_range, add_virtual_text); the visual selection; diagnostic counts. ' +
    `Each list is capped (at most ${STATE_LIMITS.windows} windows, ${STATE_LIMITS.marks} marks, ...), with a *_truncated flag, within ${LIMITS.maxResultBytes / 1024} KB. ` +
    'Prefer get_state_brief to orient yourself; get_diagnostics lists the diagnostics.',
  permission: 'read',
  routing: 'editor',
  annotations: READ_ONLY,
  input: z.object({ editor: editorArg }).strict(),
  output: StateBrief.extend({
    windows: z.array(WindowState).describe('active, alternate, then by tab'),
    windows_truncated: z.boolean().describe(`more than ${STATE_LIMITS.windows}`),
    tabs: z.array(Tab).describe('the tab pages'),
    tabs_truncated: z.boolean().describe(`more than ${STATE_LIMITS.tabs}`),
    marks: z.array(Mark).describe('lowercase marks, by buffer and letter'),
    marks_truncated: z.boolean().describe(`more than ${STATE_LIMITS.marks}`),
    selection: Selection.nullable().describe('null outside visual mode'),
    diagnostics: DiagnosticsSummary.nullable().describe('null: not supported here'),
    decorations: z.array(Decoration).describe('By buffer and position.'),
    decorations_truncated: z.boolean().describe(`more than ${STATE_LIMITS.decorations}`),
    reviews: z
      .array(z.object({ id: z.string().describe('for review_status'), buf: z.number().int().positive(), path: z.string().nullable(), shown: z.boolean().describe('in its tab; else once the user pauses') }))
      .describe('edits awaiting review (review_status)'),
  }),
});
