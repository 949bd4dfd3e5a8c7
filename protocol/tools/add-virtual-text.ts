import { z } from 'zod';
import { defineTool } from '../tool.ts';
import { BufferId, currentBufferArg, editorArg, withoutNul } from './common.ts';
import { charCount, DecorationColor, decorationColorArg, DecorationId, VIRTUAL_TEXT_LIMITS } from './decorations.ts';

const { maxChars, maxLines } = VIRTUAL_TEXT_LIMITS;

/** eol: after the end of the line; above / below: on virtual lines of their own before or after it. */
const VirtualTextPosition = z.enum(['eol', 'above', 'below']);

export const addVirtualText = defineTool({
  name: 'add_virtual_text',
  title: 'Add virtual text',
  description:
    'Show a note that is not part of the text: after the end of `line` (position eol) or on virtual lines above or below it. ' +
    'Display only, like highlight_range; the note follows its line as the buffer is edited. The line must exist. Returns the id for clear_decorations.',
  permission: 'write',
  routing: 'editor',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  input: z
    .object({
      editor: editorArg,
      buffer: currentBufferArg,
      line: z.number().int().positive().describe('The note\'s line, 1-based.'),
      text: withoutNul(z.string().min(1), 'text must not contain a NUL character (U+0000)')
        // JSON Schema's maxLength counts code points; zod's .max() would count UTF-16 units.
        .refine((t) => charCount(t) <= maxChars, `text has more than ${maxChars} characters.`)
        .refine((t) => t.split('\n').length <= maxLines, `text has more than ${maxLines} lines.`)
        .meta({ maxLength: maxChars })
        .describe(`At most ${maxChars} characters: one line for eol, at most ${maxLines} lines separated by \\n for above and below.`),
      position: VirtualTextPosition.optional().describe('eol: after the line; above or below it. Default eol.'),
      color: decorationColorArg,
    })
    .strict()
    .refine((a) => (a.position ?? 'eol') !== 'eol' || !/[\r\n]/.test(a.text), {
      message: 'eol text must be one line; use position above or below for several lines.',
      path: ['text'],
    }),
  output: z.object({
    id: DecorationId.describe('for clear_decorations'),
    ...BufferId,
    line: z.number().int().positive(),
    position: VirtualTextPosition.describe('the position given'),
    color: DecorationColor.describe('the color given'),
  }),
});
