/**
 * What the tests see of an ask prompt: the text of the one shown (a floating window in Neovim, a
 * popup in Vim), read from the editor itself (the Vim driver in Normal mode, where prompts take keys,
 * is helpers/editors.ts vimNormalDriver); its state (whether it takes keys, whether they answer);
 * and answering it as its user does, in one place.
 */
import { ASK_LUA } from '../../agent/editors/nvim/lua.ts';
import type { Driver } from './editors.ts';
import type { NvimFixture } from './nvim.ts';
import { waitFor } from './wait.ts';

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

/** A prompt as its editor reports it (lua/ask.lua 'state', vimrelay#ask#state()). */
export interface PromptState {
  id: string;
  /** Whether it has taken the user's keys (they stopped typing). */
  taking_keys: boolean;
  /** Whether its keys answer now (allow also needs `unseen` 0). */
  armed: boolean;
  rows: number;
  /** Rows never on screen yet. */
  unseen: number;
}

/** The prompts `d` shows, with their state. */
export function promptStates(d: Pick<Driver, 'kind' | 'expr'>): Promise<PromptState[]> {
  if (d.kind === 'nvim') return d.expr<PromptState[]>(`luaeval('loadstring(_A)("state")', ${JSON.stringify(ASK_LUA)})`);
  return d.expr<PromptState[]>('vimrelay#ask#state()');
}

/** Waits until the one prompt `d` shows has taken keys and they answer. */
export function promptArmed(d: Pick<Driver, 'kind' | 'expr'>): Promise<PromptState> {
  return waitFor(async () => {
    const [state, ...more] = await promptStates(d);
    if (more.length > 0) throw new Error('more than one prompt is shown');
    return state?.armed ? state : undefined;
  }, 20_000, 'the prompt to take keys and answer');
}

/** The keys that give each answer, as `Driver.type` takes them in each editor. */
const ANSWER_KEYS = {
  nvim: { allow_once: '<C-g>', allow_always: '<C-t>', deny: 'd' },
  vim: { allow_once: '\x07', allow_always: '\x14', deny: 'd' },
} as const;

/** The keys that give `answer` in `d`. */
export function answerKeys(d: Pick<Driver, 'kind'>, answer: keyof (typeof ANSWER_KEYS)['nvim']): string {
  return ANSWER_KEYS[d.kind][answer];
}

/** Answers the one prompt `d` shows as its user would: once it takes keys and they answer, the key for `answer`. */
export async function answerPrompt(d: Pick<Driver, 'kind' | 'expr' | 'type'>, answer: keyof (typeof ANSWER_KEYS)['nvim']): Promise<void> {
  await promptArmed(d);
  await d.type(answerKeys(d, answer));
}
