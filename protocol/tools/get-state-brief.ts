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
  name: z.string().describe('The buffer name as the editor shows it (may be relative).'),
  listed: z.boolean(),
  loaded: z.boolean(),
  modified: z.boolean(),
  buftype: z.string(),
  filetype: z.string(),
  line_count: z.number().int().nonnegative().nullable().describe('Null when the buffer is not loaded, or is a never_read file.'),
  changedtick: z.number().int().nonnegative().nullable().describe('Null when the buffer is not loaded, or is a never_read file.'),
});

export const WindowContext = z.object({
  start_line: z.number().int().positive(),
  lines: z.array(z.string()),
  lines_cut: z
    .boolean()
    .describe(`True when a line was longer than ${STATE_CONTEXT_LINE_BYTES} bytes and was cut; read_buffer returns it whole.`),
});

export const WindowSummary = z.object({
  win: z.number().int().positive().describe('Window id.'),
  role: z.enum(['active', 'alternate']),
  ...BufferId,
  cursor: Position,
  context: WindowContext.describe(`The cursor line and up to ${LIMITS.stateContextLines} lines each side of it.`),
});

export const TerminalSummary = z.object({
  buf: z.number().int().positive(),
  name: z.string(),
  visible: z.boolean().describe('Shown in some window.'),
});

/** What get_state_brief returns; get_state extends it. */
export const StateBrief = z.object({
  mode: z.string().describe('Vim mode() short name: n, i, v, V, c, t, ...'),
  cwd: z.string(),
  buffers: z.array(BufferSummary).describe('Listed buffers first, then unlisted ones, each group by number.'),
  buffers_truncated: z
    .boolean()
    .describe(`True when buffers, modified_buffers or terminals were cut (at ${LIMITS.stateMaxBuffers} entries each, or to keep the result under ${LIMITS.maxResultBytes / 1024} KB).`),
  modified_buffers: z.array(z.number().int().positive()).describe('Numbers of the buffers with unsaved changes.'),
  windows: z.array(WindowSummary).describe('Active window first, then the alternate (previous) window if any.'),
  terminals: z.array(TerminalSummary).optional().describe('Terminal buffers; present only when there are any.'),
});

export const getStateBrief = defineTool({
  name: 'get_state_brief',
  title: 'Editor state (brief)',
  description:
    'Orient yourself in one editor: mode, cwd, the buffers (number, path, modified, changedtick), which are modified, ' +
    `the active window and the alternate one with cursor and ${LIMITS.stateContextLines} lines of context each side, and terminals (when there are any). ` +
    `Lists at most ${LIMITS.stateMaxBuffers} buffers (listed ones first), ${LIMITS.stateMaxBuffers} modified buffers and ${LIMITS.stateMaxBuffers} terminals, ` +
    `and stops listing at ${LIMITS.maxResultBytes / 1024} KB; \`buffers_truncated\` says when it cut. Context lines are cut at ${STATE_CONTEXT_LINE_BYTES} bytes (\`lines_cut\`). ` +
    'Use get_state for every window, tabs, folds, marks, the visual selection, diagnostics and decorations; read_buffer for a buffer\'s text; list_editors to choose an editor.',
  permission: 'read',
  routing: 'editor',
  annotations: READ_ONLY,
  input: z.object({ editor: editorArg }).strict(),
  output: StateBrief,
});
