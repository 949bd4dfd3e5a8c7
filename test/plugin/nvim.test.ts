// plugin/nvim in a real Neovim: :VimRelayName names the editor as the agent reports it, and
// :VimRelayStatus says where it listens, and with no agent that none has run and what to do (with
// one: nvim-health.test.ts, beside :checkhealth vimrelay).
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ROOT } from '../../scripts/local-relay.ts';
import { nvimDriver, waitFor, type NvimDriver } from '../helpers/editors.ts';

let fx: NvimDriver;
beforeAll(async () => {
  fx = await nvimDriver({ args: ['--cmd', `set rtp^=${join(ROOT, 'plugin', 'nvim')}`, '--cmd', 'runtime plugin/vimrelay.lua'] });
});
afterAll(async () => {
  await fx?.stop();
});

it(':VimRelayName names the editor in the agent\'s info, and :VimRelayName! clears it', async () => {
  expect(fx.editor.info().name).toBe('work');
  // No refresh asked for: :VimRelayName tells the agent itself (User VimRelayName).
  await fx.nvim.client.command('VimRelayName laptop-main');
  await waitFor(() => (fx.editor.info().name === 'laptop-main' ? true : undefined), 10_000, 'the new name');
  await fx.nvim.client.command('VimRelayName!');
  await waitFor(() => (fx.editor.info().name === 'work' ? true : undefined), 10_000, 'the name cleared');
});

it(':VimRelayStatus says where the agent can reach the editor, and that no agent has run', async () => {
  const out = (await fx.nvim.client.request('nvim_exec', ['VimRelayStatus', true])) as string;
  expect(out.split('\n')).toEqual([
    `vimrelay: discoverable at ${fx.nvim.socket} as work`,
    '  agent: none has run for this user',
    '    do: vimrelay pair <relay>, then vimrelay agent (or vimrelay service install)',
  ]);
});
