/** find_and_replace (lua/find_and_replace.lua, vimrelay/find_and_replace.vim): one exact match, one undo step. */
import { findAndReplace, LIMITS } from '../../../protocol/index.ts';
import { bufferName, prefixed } from './describe.ts';
import { defineEditorTool } from './tool.ts';

/**
 * Lists at most LIMITS.maxMatchesReported match positions when old_text is not unique. Both texts
 * go as their lines, so that a U+0000 stays inside its line on Vim too.
 */
export const findAndReplaceTool = defineEditorTool({
  spec: findAndReplace,
  impl: 'find_and_replace',
  params: (args) => ({
    buffer: args.buffer,
    old_lines: args.old_text.split('\n'),
    new_lines: args.new_text.split('\n'),
    expected_changedtick: args.expected_changedtick,
    max_matches: LIMITS.maxMatchesReported,
  }),
  addresses: 'buffer',
  neverRead: { refuses: true },
  lineTexts: { params: ['old_lines.*', 'new_lines.*'] },
  preview: (args) => [`in ${bufferName(args.buffer)}:`, ...prefixed('- ', args.old_text), ...prefixed('+ ', args.new_text)],
  review: { kind: 'copy', creates: false },
});
