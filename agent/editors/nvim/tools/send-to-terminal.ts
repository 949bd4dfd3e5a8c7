/** send_to_terminal on Neovim (lua/send_to_terminal.lua): nvim_chan_send to a terminal's job. */
import { SEND_TO_TERMINAL_LIMITS, sendToTerminal } from '../../../../protocol/index.ts';
import { startBy } from './start-by.ts';
import { defineNvimTool } from './tool.ts';

/** Errors list at most SEND_TO_TERMINAL_LIMITS.listedTerminals terminals. */
export const sendToTerminalTool = defineNvimTool({
  spec: sendToTerminal,
  lua: 'send_to_terminal.lua',
  params: (args) => ({
    terminal: args.terminal,
    text: args.text,
    submit: args.submit ?? false,
    max_listed: SEND_TO_TERMINAL_LIMITS.listedTerminals,
    start_by: startBy(),
  }),
});
