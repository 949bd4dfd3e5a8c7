/**
 * get_state_brief: the orientation snapshot of one editor (PROTOCOL.md "Tools"). Its
 * pieces are exported because get_state returns everything the brief does, plus more.
 */
import { z } from 'zod';
import { LIMITS } from '../limits.ts';
import { defineTool, READ_ONLY } from '../tool.ts';
import { BufferId, editorArg, Position, POSITION_TEXT } from './common.ts';

/**
 * Context lines longer than this many bytes are cut (at a character boundary), so that a buffer of
 * minified text cannot push a state result past LIMITS.maxResultBytes.
 */
export const STATE_CONTEXT_LINE_BYTES = 1_000;

export const BufferSummary = z.object({
  ...BufferId,
  name: z.string().describe('as the editor shows it'),
  listed: z.boolean().describe('in the buffer list (:ls)'),
  loaded: z.boolean().describe('its text is in memory'),
  modified: z.boolean(),
  buftype: z.string().describe("'' for a file; terminal, help, ..."),
  filetype: z.string(),
  line_count: z.number().int().nonnegative().nullable().describe("null: not loaded, or hidden by the user's policy"),
  changedtick: z.number().int().nonnegative().nullable().describe('counts its changes; null as line_count'),
});

export const WindowContext = z.object({
  start_line: z.number().int().positive().describe('line of lines[0]'),
  lines: z.array(z.string()).describe('the text, unsaved included'),
  /** A line was longer than STATE_CONTEXT_LINE_BYTES and was cut (the tool's description says so). */
  lines_cut: z.boolean().describe(`a line was cut at ${STATE_CONTEXT_LINE_BYTES} bytes`),
});

export const WindowSummary = z.object({
  win: z.number().int().positive().describe('the window\'s id'),
  role: z.enum(['active', 'alternate']).describe('current, or previous (:wincmd p)'),
  ...BufferId,
  cursor: Position.nullable().describe(`${POSITION_TEXT}; null: the user's policy hides the file`),
  /** The cursor line and up to LIMITS.stateContextLines lines each side of it; null with the cursor. */
  context: WindowContext.nullable().describe(`lines around the cursor, ${LIMITS.stateContextLines} each side`),
});

export const TerminalSummary = z.object({
  buf: z.number().int().positive(),
  name: z.string().describe('the buffer name (term://...)'),
  visible: z.boolean().describe('shown in a window'),
});

/** What get_state_brief returns; get_state extends it. */
export const StateBrief = z.object({
  mode: z.string().describe('mode() short name: n, i, v, V, c, t, ...'),
  cwd: z.string(),
  buffers: z.array(BufferSummary).describe('listed ones first, by number'),
  /** buffers, modified_buffers or terminals were cut (the tool's description says where). */
  buffers_truncated: z.boolean().describe('a list was cut at its cap'),
  modified_buffers: z.array(z.number().int().positive()).describe('numbers of those with unsaved changes'),
  windows: z.array(WindowSummary).describe('the active and alternate ones'),
  terminals: z.array(TerminalSummary).optional().describe('terminal buffers, when there are any'),
});

export const getStateBrief = defineTool({
  name: 'get_state_brief',
  title: 'Editor state (brief)',
  description:
    'Orient yourself in one editor: mode, cwd, buffers (and which have unsaved changes), the active and alternate windows with the cursor and ' +
    `${LIMITS.stateContextLines} lines around it, terminals. At most ${LIMITS.stateMaxBuffers} of each list and ${LIMITS.maxResultBytes / 1024} KB (buffers_truncated). ` +
    'get_state adds every window, tabs, folds, marks, the selection, diagnostics and decorations.',
  permission: 'read',
  routing: 'editor',
  annotations: READ_ONLY,
  input: z.object({ editor: editorArg }).strict(),
  output: StateBrief,
});
