/**
 * What a call would do, in words a person can judge at a prompt: the lines of the tool's own
 * preview (its record, editors/tools/tool.ts `preview`: the command text for exec, the diff or
 * replaced text for writes, the path for save and open), made into the prompt's text.
 *
 * Contract: pure. Never cuts: the preview is the whole of what the call would do, or nothing. A
 * preview of more than PREVIEW_LIMITS.maxChars characters (code points, line breaks included)
 * is not shown at all: the prompt then says so and offers only deny (editors/prompts.ts), so that
 * no "allow" ever covers text the user could not see. It reads no editor, so a preview shows what
 * the model sent (commands, keys, new text), never a file's content.
 */

/** Caps of a preview. */
export const PREVIEW_LIMITS = {
  /**
   * Characters a prompt shows whole (the largest send_to_terminal text fits, with room for its
   * target line); a longer preview makes the prompt deny-only.
   */
  maxChars: 100_000,
} as const;

/** A preview as a prompt takes it: its whole text, or null when it is too long to show whole; and its length. */
export interface PreviewText {
  text: string | null;
  /** Characters (code points) of the whole text, line breaks included. */
  chars: number;
}

/** The prompt text of a tool's preview `lines`, whole, or null past PREVIEW_LIMITS.maxChars. */
export function previewOf(preview: readonly string[]): PreviewText {
  const text = preview.join('\n');
  let chars = 0;
  for (const _ of text) chars++;
  return { text: chars <= PREVIEW_LIMITS.maxChars ? text : null, chars };
}
