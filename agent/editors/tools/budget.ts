/**
 * The byte budget the Neovim tools fill their lists to. The Lua counts items as JSON
 * (util.lua `M.budget`); the margin leaves room for the fields around the lists (cwd, paths,
 * flags, a cursor), so that no result passes LIMITS.maxResultBytes of text.
 */
import { LIMITS } from '../../../protocol/index.ts';

/** Bytes kept free for a result's fixed fields. */
export const RESULT_MARGIN_BYTES = 8 * 1024;

/** Bytes of JSON a tool may spend on its lists. */
export const LIST_BUDGET_BYTES = LIMITS.maxResultBytes - RESULT_MARGIN_BYTES;
