/**
 * What the tests see of an ask prompt: the text of the one shown (a floating window in Neovim, a
 * popup in Vim), read from the editor itself (the Vim driver in Normal mode, where prompts take keys,
 * is helpers/editors.ts vimNormalDriver); and how they answer one (`answerPrompt`).
 */
import type { Driver } from './editors.ts';
import type { NvimFixture } from './nvim.ts';

/** The text of the prompt shown in the editor, or null when none is. */
export async function shown(d: Driver): Promise<string[] | null> {
  if (d.kind === 'nvim') {
    const lua =
      "(function() for _, w in ipairs(vim.api.nvim_list_wins()) do if vim.api.nvim_win_get_config(w).relative ~= '' then " +
      'return vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(w), 0, -1, true) end end return nil end)()';
    return d.expr<string[] | null>(`luaeval(${JSON.stringify(lua)})`);
  }
  const popups = await d.expr<string[][]>("map(popup_list(), 'getbufline(winbufnr(v:val), 1, \"$\")')");
  return popups[0] ?? null;
}

/** How many floating windows (a prompt is one) `nvim` shows. */
export function floatsIn(nvim: NvimFixture): Promise<number> {
  return nvim.lua<number>("return #vim.tbl_filter(function(w) return vim.api.nvim_win_get_config(w).relative ~= '' end, vim.api.nvim_list_wins())");
}

/** An answer a user gives at a prompt. */
export type PromptAnswer = 'allow_once' | 'allow_always' | 'deny';

/** The keys that give each answer. */
const ANSWER_KEYS: Readonly<Record<PromptAnswer, string>> = { allow_once: 'o', allow_always: 'a', deny: 'd' };

/**
 * Answers the prompt shown in `d` as a user would, by its keys. The one place tests name the
 * keys: a change of the prompts' keys changes this function only.
 */
export async function answerPrompt(d: Driver, answer: PromptAnswer): Promise<void> {
  await d.type(ANSWER_KEYS[answer]);
}
