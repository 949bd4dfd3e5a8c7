/** send_keys (lua/send_keys.lua, vimrelay/send_keys.vim): <Esc> + keys, CTRL-C watchdog. */
import { SEND_KEYS_LIMITS, sendKeys } from '../../../protocol/index.ts';
import { defineEditorTool } from './tool.ts';

/** Keys run to completion within timeout_ms (default SEND_KEYS_LIMITS.defaultTimeoutMs); not started after the deadline. */
export const sendKeysTool = defineEditorTool({
  spec: sendKeys,
  impl: 'send_keys',
  params: (args, call) => ({
    keys: args.keys,
    timeout_ms: args.timeout_ms ?? SEND_KEYS_LIMITS.defaultTimeoutMs,
    error_bytes: SEND_KEYS_LIMITS.errorBytes,
    start_by: call.deadline,
  }),
  // Keys act on the current buffer.
  addresses: 'current',
  neverRead: { refuses: true, filter: 'command_output' },
  preview: (args) => [`keys: ${args.keys}`],
});
