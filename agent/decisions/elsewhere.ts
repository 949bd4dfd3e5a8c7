/**
 * Saying who decided: the words an editor's prompt or review closes with when another surface
 * answered it first (README "Deciding from elsewhere"), and the abort reason that carries them to
 * the prompt (editors/prompts.ts).
 */
import type { Surface } from '../../protocol/index.ts';

/** Where a surface is, in words: "in the editor", "on the dashboard", "in the assistant". */
export function where(by: Surface): string {
  switch (by) {
    case 'editor':
      return 'in the editor';
    case 'dashboard':
      return 'on the dashboard';
    case 'assistant':
      return 'in the assistant';
  }
}

/** Why a prompt closes unanswered in the editor: `by` answered it first; `notice` is the one line the editor shows. */
export class DecidedElsewhere extends Error {
  override name = 'DecidedElsewhere';
  readonly by: Surface;
  readonly notice: string;

  constructor(by: Surface, said: string) {
    super(`${said} ${where(by)}`);
    this.by = by;
    this.notice = `vimrelay: ${said} ${where(by)}`;
  }
}
