import { z } from 'zod';
import { LIMITS } from '../limits.ts';
import { defineTool, READ_ONLY } from '../tool.ts';
import { BufferId, editorArg, Position } from './common.ts';

const BufferSummary = z.object({
  ...BufferId,
  name: z.string().describe('The buffer name as the editor shows it (may be relative).'),
  listed: z.boolean(),
  loaded: z.boolean(),
  modified: z.boolean(),
  buftype: z.string(),
  filetype: z.string(),
  line_count: z.number().int().nonnegative().nullable().describe('Null when the buffer is not loaded.'),
  changedtick: z.number().int().nonnegative().nullable().describe('Null when the buffer is not loaded.'),
});

const WindowSummary = z.object({
  win: z.number().int(),
  role: z.enum(['active', 'alternate']),
  ...BufferId,
  cursor: Position,
  context: z.object({
    start_line: z.number().int().positive(),
    lines: z.array(z.string()),
  }),
});

const TerminalSummary = z.object({
  buf: z.number().int().positive(),
  name: z.string(),
  visible: z.boolean(),
});

export const getStateBrief = defineTool({
  name: 'get_state_brief',
  title: 'Editor state (brief)',
  description:
    'Orient yourself in one editor: mode, cwd, the buffers (number, path, modified, changedtick), which are modified, ' +
    'the active window and the alternate one with cursor and a few lines of context, and any terminals. ' +
    `Lists at most ${LIMITS.stateMaxBuffers} buffers (listed ones first; \`buffers_truncated\` says when more exist). ` +
    'Use read_buffer for a buffer\'s text, and list_editors to choose an editor.',
  permission: 'read',
  routing: 'editor',
  annotations: READ_ONLY,
  input: z.object({ editor: editorArg }).strict(),
  output: z.object({
    mode: z.string().describe('Vim mode() short name: n, i, v, V, c, t, ...'),
    cwd: z.string(),
    buffers: z.array(BufferSummary),
    buffers_truncated: z.boolean(),
    modified_buffers: z.array(z.number().int().positive()),
    windows: z.array(WindowSummary).describe('Active window first, then the alternate (previous) window if any.'),
    terminals: z.array(TerminalSummary),
  }),
});
