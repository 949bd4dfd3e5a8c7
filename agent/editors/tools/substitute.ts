/** substitute (lua/substitute.lua, vimrelay/substitute.vim): :substitute with a counted dry run, state kept. */
import { substitute } from '../../../protocol/index.ts';
import { bufferName } from './describe.ts';
import { defineEditorTool } from './tool.ts';

/** Case-sensitive unless flags has i; the range defaults to the whole buffer. */
export const substituteTool = defineEditorTool({
  spec: substitute,
  impl: 'substitute',
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
  addresses: 'buffer',
  neverRead: { refuses: true },
  preview: (args) => {
    const start = args.start_line ?? 1;
    const range = args.end_line === undefined ? `${start},$` : `${start},${args.end_line}`;
    return [`in ${bufferName(args.buffer)}:`, `:${range}s/${args.pattern}/${args.replacement}/${args.flags ?? ''}`];
  },
  review: { kind: 'copy', creates: false },
});
