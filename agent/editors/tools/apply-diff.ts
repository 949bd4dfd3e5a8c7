/** apply_diff (lua/apply_diff.lua, vimrelay/apply_diff.vim): parsed hunks located and applied in one call. */
import { APPLY_DIFF_LIMITS, applyDiff, parseUnifiedDiff } from '../../../protocol/index.ts';
import { bufferName } from './describe.ts';
import { defineEditorTool } from './tool.ts';

const L = APPLY_DIFF_LIMITS;

/**
 * The diff is parsed here, in the agent; the editor gets hunks (context, edits, end-of-file marks)
 * and checks every one against its live lines before it changes any. Mismatch reports are capped
 * at APPLY_DIFF_LIMITS.mismatchLines lines of APPLY_DIFF_LIMITS.lineBytes bytes each.
 */
export const applyDiffTool = defineEditorTool({
  spec: applyDiff,
  impl: 'apply_diff',
  params: (args) => {
    const parsed = parseUnifiedDiff(args.diff);
    // Arguments arrive validated against the spec, whose schema refuses a diff that does not parse.
    if (!parsed.ok) throw new Error(`apply_diff received a diff its schema should have refused: ${parsed.message}`);
    return {
      buffer: args.buffer,
      expected_changedtick: args.expected_changedtick,
      hunks: parsed.hunks,
      mismatch_lines: L.mismatchLines,
      line_bytes: L.lineBytes,
      max_shifted: L.shiftedListed,
    };
  },
  addresses: 'buffer',
  neverRead: { refuses: true },
  lineTexts: {
    params: ['hunks.*.old.*', 'hunks.*.edits.*.add.*'],
    // DIFF_MISMATCH shows the buffer's lines there and the hunk's line that differs.
    answer: ['error.buffer_lines.lines.*', 'error.expected', 'error.actual'],
  },
  preview: (args) => [`in ${bufferName(args.buffer)}:`, ...args.diff.replace(/\n$/, '').split('\n')],
  review: { kind: 'copy', creates: false },
});
