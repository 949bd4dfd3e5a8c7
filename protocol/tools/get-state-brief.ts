/**
 * get_state_brief: the orientation snapshot of one editor (PROTOCOL.md "Tools"). Its
 * pieces are exported because get_state returns everything the brief does, plus more.
 */
import { z } from 'zod';
import { LIMITS } from '../limits.ts';
import { defineTool, READ_ONLY } from '../tool.ts';
import { BufferId, editorArg, Position } from './common.ts';

/**
 * Context lines longer than this many bytes are cut (at a character boundary), so that a buffer of
 * minified text cannot push a state result past LIMITS.maxResultBytes.
 */
export const STATE_CONTEXT_LINE_BYTES = 1_000;

export const BufferSummary = z.object({
  ...BufferId,
  name: z.string().describe('as the editor shows it'),
  listed: z.boolean(),
  loaded: z.boolean(),
  modified: z.boolean(),
  buftype: z.string(),
  filetype: z.string(),
  line_count: z.number().int().nonnegative().nullable().describe('null: not loaded or never_read'),
  changedtick: z.number().int().nonnegative().nullable().describe('null: not loaded or never_read'),
});

export const WindowContext = z.object({
  start_line: z.number().int().positive(),
  lines: z.array(z.string()),
  /** A line was longer than STATE_CONTEXT_LINE_BYTES and was cut (the tool's description says so). */
  lines_cut: z.boolean(),
});

export const WindowSummary = z.object({
  win: z.number().int().positive(),
  role: z.enum(['active', 'alternate']),
  ...BufferId,
  cursor: Position.nullable().describe('null: never_read'),
  /** The cursor line and up to LIMITS.stateContextLines lines each side of it; null with the cursor. */
  context: WindowContext.nullable(),
});

export const TerminalSummary = z.object({
  buf: z.number().int().positive(),
  name: z.string(),
  visible: z.boolean().describe('shown in a window'),
});

/** What get_state_brief returns; get_state extends it. */
export const StateBrief = z.object({
  mode: z.string().describe('mode() short name: n, i, v, V, c, t, ...'),
  cwd: z.string(),
  buffers: z.array(BufferSummary).describe('Listed first, then unlisted, each by number.'),
  /** buffers, modified_buffers or terminals were cut (the tool's description says where). */
  buffers_truncated: z.boolean(),
  modified_buffers: z.array(z.number().int().positive()),
  windows: z.array(WindowSummary),
  terminals: z.array(TerminalSummary).optional().describe('Only when there are any.'),
});

export const getStateBrief = defineTool({
  name: 'get_state_brief',
  title: 'Editor state (brief)',
  description:
    'Orient yourself in one editor: mode, cwd, buffers, the modified ones, the active and alternate windows with their cursor and ' +
    `${LIMITS.stateContextLines} lines of context each side, and terminals. At most ${LIMITS.stateMaxBuffers} buffers, ${LIMITS.stateMaxBuffers} modified buffers, ` +
    `${LIMITS.stateMaxBuffers} terminals and ${LIMITS.maxResultBytes / 1024} KB (buffers_truncated); context lines are cut at ${STATE_CONTEXT_LINE_BYTES} bytes (lines_cut). ` +
    'get_state adds every window, tabs, folds, marks, the selection, diagnostics and decorations.',
  permission: 'read',
  routing: 'editor',
  annotations: READ_ONLY,
  input: z.object({ editor: editorArg }).strict(),
  output: StateBrief,
});
