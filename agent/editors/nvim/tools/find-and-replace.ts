/** find_and_replace on Neovim (lua/find_and_replace.lua): one exact match, one undo step. */
import { findAndReplace, LIMITS } from '../../../../protocol/index.ts';
import { defineNvimTool } from './tool.ts';

/** Lists at most LIMITS.maxMatchesReported match positions when old_text is not unique. */
export const findAndReplaceTool = defineNvimTool({
  spec: findAndReplace,
  lua: 'find_and_replace.lua',
  params: (args) => ({
    buffer: args.buffer,
    old_text: args.old_text,
    new_text: args.new_text,
    expected_changedtick: args.expected_changedtick,
    max_matches: LIMITS.maxMatchesReported,
  }),
});
