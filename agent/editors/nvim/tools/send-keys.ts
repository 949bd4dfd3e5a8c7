/** send_keys on Neovim (lua/send_keys.lua): <Esc> + keys through nvim_feedkeys, CTRL-C watchdog. */
import { SEND_KEYS_LIMITS, sendKeys } from '../../../../protocol/index.ts';
import { startBy } from './start-by.ts';
import { defineNvimTool } from './tool.ts';

/** Keys run to completion within timeout_ms (default SEND_KEYS_LIMITS.defaultTimeoutMs). */
export const sendKeysTool = defineNvimTool({
  spec: sendKeys,
  lua: 'send_keys.lua',
  params: (args) => ({
    keys: args.keys,
    timeout_ms: args.timeout_ms ?? SEND_KEYS_LIMITS.defaultTimeoutMs,
    error_bytes: SEND_KEYS_LIMITS.errorBytes,
    start_by: startBy(),
  }),
});
