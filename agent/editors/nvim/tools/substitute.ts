/** substitute on Neovim (lua/substitute.lua): :substitute with a counted dry run, state kept. */
import { substitute } from '../../../../protocol/index.ts';
import { defineNvimTool } from './tool.ts';

/** Case-sensitive unless flags has i; the range defaults to the whole buffer. */
export const substituteTool = defineNvimTool({
  spec: substitute,
  lua: 'substitute.lua',
  params: (args) => ({
    buffer: args.buffer,
    pattern: args.pattern,
    replacement: args.replacement,
    global: args.flags?.includes('g') ?? false,
    ignore_case: args.flags?.includes('i') ?? false,
    start_line: args.start_line,
    end_line: args.end_line,
    expected_changedtick: args.expected_changedtick,
  }),
});
