/** send_to_terminal (lua/send_to_terminal.lua, vimrelay/send_to_terminal.vim): text to a terminal's job. */
import { SEND_TO_TERMINAL_LIMITS, sendToTerminal } from '../../../protocol/index.ts';
import { prefixed } from './describe.ts';
import { defineEditorTool } from './tool.ts';

/** Errors list at most SEND_TO_TERMINAL_LIMITS.listedTerminals terminals; not started after the deadline. */
export const sendToTerminalTool = defineEditorTool({
  spec: sendToTerminal,
  impl: 'send_to_terminal',
  params: (args, call) => ({
    terminal: args.terminal,
    text: args.text,
    submit: args.submit ?? false,
    max_listed: SEND_TO_TERMINAL_LIMITS.listedTerminals,
    start_by: call.deadline,
  }),
  addresses: 'current',
  // The job gets the text; nothing of a buffer's text comes back.
  neverRead: { refuses: false },
  preview: (args) => {
    const target = args.terminal === undefined ? 'the current (or only) terminal' : `terminal ${String(args.terminal)}`;
    return [`to ${target}${args.submit === true ? ', then Enter' : ''}:`, ...prefixed('  ', args.text)];
  },
});
