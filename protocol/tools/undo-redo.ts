/**
 * undo and redo: steps back or forward along one buffer's undo tree (Vim's :undo / :redo), with
 * where the buffer is in that tree afterwards. One definition serves both directions.
 */
import { z } from 'zod';
import { CHANGES_TEXT, defineTool } from '../tool.ts';
import { BufferId, changedtickArg, currentBufferArg, editorArg } from './common.ts';

/** Caps of undo and redo. */
export const UNDO_LIMITS = {
  /** The most steps one call may take. */
  maxSteps: 100,
} as const;

const output = z.object({
  ...BufferId,
  steps_taken: z.number().int().nonnegative().describe('Steps actually taken: fewer than asked when the oldest (or newest) state was reached.'),
  changed: z.boolean().describe('Whether the buffer\'s text changed.'),
  changedtick: z.number().int().nonnegative().describe('The buffer\'s changedtick after the call.'),
  seq_cur: z.number().int().nonnegative().describe('The undo sequence number the buffer is at now (0: before the first change Vim remembers).'),
  seq_last: z.number().int().nonnegative().describe('The highest undo sequence number of the buffer.'),
});

function undoTool(direction: 'undo' | 'redo') {
  const undo = direction === 'undo';
  return defineTool({
    name: direction,
    title: undo ? 'Undo' : 'Redo',
    description:
      (undo
        ? 'Undo the last change(s) of a buffer, as :undo does, whoever made them (the user included); each vimrelay edit is one step. '
        : 'Redo what undo took back in a buffer, as :redo does, following the current branch of the undo tree. ') +
      `steps: how many (default 1, at most ${UNDO_LIMITS.maxSteps}); it stops early at the ${undo ? 'oldest' : 'newest'} state, and \`steps_taken\` says how many were taken. ` +
      'Pass expected_changedtick (from read_buffer or your last edit) so that a change the user made since is not the one taken back; a stale one changes nothing. ' +
      'The change stays unsaved. In a buffer other than the current one, the cursor and view of the window showing it are kept. ' +
      `${undo ? 'redo' : 'undo'} goes the other way; to see the text afterwards use read_buffer.`,
    permission: 'write',
    routing: 'editor',
    annotations: CHANGES_TEXT,
    input: z
      .object({
        editor: editorArg,
        buffer: currentBufferArg,
        steps: z
          .number()
          .int()
          .positive()
          .max(UNDO_LIMITS.maxSteps)
          .optional()
          .describe(`How many steps. Default 1, at most ${UNDO_LIMITS.maxSteps}.`),
        expected_changedtick: changedtickArg.optional(),
      })
      .strict(),
    output,
  });
}

export const undo = undoTool('undo');
export const redo = undoTool('redo');
