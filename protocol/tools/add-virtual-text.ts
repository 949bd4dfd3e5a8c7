import { z } from 'zod';
import { defineTool } from '../tool.ts';
import { BufferId, currentBufferArg, editorArg } from './common.ts';
import { charCount, DecorationColor, decorationColorArg, DecorationId, VIRTUAL_TEXT_LIMITS } from './decorations.ts';

const { maxChars, maxLines } = VIRTUAL_TEXT_LIMITS;

const VirtualTextPosition = z
  .enum(['eol', 'above', 'below'])
  .describe('eol: after the end of the line (default); above / below: on virtual lines of their own before or after it.');

export const addVirtualText = defineTool({
  name: 'add_virtual_text',
  title: 'Add virtual text',
  description:
    'Show a note in a buffer that is not part of its text: after the end of `line` (position eol, the default) or on virtual lines above or below it. ' +
    'Display only: the text, changedtick, undo history and file are untouched, and the note follows its line as the buffer is edited. ' +
    `\`text\` has at most ${maxChars} characters; eol text is one line, above/below text at most ${maxLines} lines separated by \\n. ` +
    'The line must exist (else INVALID_ARGUMENT, with `line_count`). ' +
    'Returns the decoration `id` for clear_decorations. To mark a stretch of the text itself use highlight_range; to change the text use find_and_replace.',
  permission: 'write',
  routing: 'editor',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  input: z
    .object({
      editor: editorArg,
      buffer: currentBufferArg,
      line: z.number().int().positive().describe('1-based line the note belongs to; must exist.'),
      text: z
        .string()
        .min(1)
        // JSON Schema's maxLength counts code points; zod's .max() would count UTF-16 units.
        .refine((t) => charCount(t) <= maxChars, `text has more than ${maxChars} characters.`)
        .refine((t) => t.split('\n').length <= maxLines, `text has more than ${maxLines} lines.`)
        .meta({ maxLength: maxChars })
        .describe(`The note: at most ${maxChars} characters; for above/below at most ${maxLines} lines separated by \\n, for eol a single line.`),
      position: VirtualTextPosition.optional(),
      color: decorationColorArg,
    })
    .strict()
    .refine((a) => (a.position ?? 'eol') !== 'eol' || !/[\r\n]/.test(a.text), {
      message: 'eol text must be one line; use position above or below for several lines.',
      path: ['text'],
    }),
  output: z.object({
    id: DecorationId,
    ...BufferId,
    line: z.number().int().positive(),
    position: VirtualTextPosition,
    color: DecorationColor,
  }),
});
