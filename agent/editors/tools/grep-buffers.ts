/** grep_buffers (lua/grep_buffers.lua, vimrelay/grep_buffers.vim): the search runs in the editor; one page returns. */
import { GREP_LIMITS, grepBuffers } from '../../../protocol/index.ts';
import { LIST_BUDGET_BYTES } from './budget.ts';
import { bufferName } from './describe.ts';
import { defineEditorTool } from './tool.ts';

/** Pages of max_results hits (default GREP_LIMITS.defaultResults), LIST_BUDGET_BYTES of JSON at most. */
export const grepBuffersTool = defineEditorTool({
  spec: grepBuffers,
  impl: 'grep_buffers',
  params: (args) => ({
    pattern: args.pattern,
    mode: args.mode ?? 'literal',
    case_sensitive: args.case_sensitive ?? true,
    buffers: args.buffers,
    max_results: args.max_results ?? GREP_LIMITS.defaultResults,
    cursor: args.cursor,
    max_bytes: LIST_BUDGET_BYTES,
    line_bytes: GREP_LIMITS.lineBytes,
    trim_context_bytes: GREP_LIMITS.trimContextBytes,
    scan_lines: GREP_LIMITS.scanLines,
  }),
  addresses: 'buffers_or_loaded',
  // Refused when it names a never_read buffer; a search over every buffer only loses their hits.
  neverRead: { refuses: (args) => args.buffers !== undefined, filter: 'grep_hits' },
  lineTexts: { answer: ['data.hits.*.text'] },
  preview: (args) => [
    `search ${args.buffers === undefined ? 'every loaded buffer' : args.buffers.map(bufferName).join(', ')} for ${args.mode === 'regex' ? 'the regex' : 'the text'}:`,
    `  ${args.pattern}`,
  ],
});
