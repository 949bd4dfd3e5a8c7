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
  steps_taken: z.number().int().nonnegative().describe('fewer than steps at the end of the history'),
  changed: z.boolean().describe('the text changed'),
  changedtick: z.number().int().nonnegative().describe('pass to the next edit'),
  seq_cur: z.number().int().nonnegative().describe('The undo sequence number now; 0: before the first change Vim remembers.'),
  seq_last: z.number().int().nonnegative().describe('the newest undo sequence number'),
});

function undoTool(direction: 'undo' | 'redo') {
  const undo = direction === 'undo';
  return defineTool({
    name: direction,
    title: undo ? 'Undo' : 'Redo',
    description:
      (undo
        ? 'Undo the last change(s) of a buffer, as :undo does, whoever made them (the user too); each vimrelay edit is one step. '
        : 'Redo what undo took back in a buffer, as :redo does, along the current branch of the undo tree. ') +
      `At most ${UNDO_LIMITS.maxSteps} steps, up to the ${undo ? 'oldest' : 'newest'} state. ` +
      'Pass expected_changedtick, so that a change the user made since is not the one taken back. ' +
      'A buffer not current keeps its window\'s cursor and view. ' +
      `${undo ? 'redo' : 'undo'} goes the other way.`,
    permission: 'write',
    routing: 'editor',
    annotations: CHANGES_TEXT,
    input: z
      .object({
        editor: editorArg,
        buffer: currentBufferArg,
        steps: z.number().int().positive().max(UNDO_LIMITS.maxSteps).optional().describe('How many changes; default 1.'),
        expected_changedtick: changedtickArg.optional(),
      })
      .strict(),
    output,
  });
}

export const undo = undoTool('undo');
export const redo = undoTool('redo');
