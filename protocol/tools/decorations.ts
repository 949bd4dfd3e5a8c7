/**
 * Pieces shared by the decoration tools (highlight_range, add_virtual_text, clear_decorations):
 * the color enum, the decoration id, and the caps on virtual text. Decorations are display-only
 * annotations (Neovim extmarks in the `vimrelay` namespace, Vim text properties): they never change
 * a buffer's text, its changedtick or its undo history.
 */
import { z } from 'zod';

/** The named styles a decoration can take; each editor maps them to highlight groups. */
export const DECORATION_COLORS = ['info', 'hint', 'success', 'warning', 'error'] as const;

export const DecorationColor = z.enum(DECORATION_COLORS);
export type DecorationColor = z.infer<typeof DecorationColor>;

/** The `color` argument of the tools that add a decoration. */
export const decorationColorArg = DecorationColor.optional().describe('Named color, as the user\'s colorscheme shows it. Default info.');

/** Caps on add_virtual_text's `text`, counted in characters (code points) and in lines. */
export const VIRTUAL_TEXT_LIMITS = {
  /** Characters in the whole text, newlines included. */
  maxChars: 500,
  /** Virtual lines one call may add (position above or below); eol text is a single line. */
  maxLines: 10,
} as const;

/** A decoration as the tools name it: an id unique within its buffer (the tools' descriptions say so). */
export const DecorationId = z.number().int().positive();

/** Number of characters (code points) of `s`, as JSON Schema's maxLength counts them. */
export function charCount(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}
