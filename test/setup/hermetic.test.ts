// The test run's own directories (test/setup/hermetic.ts): every temporary directory a test makes
// (the homes, sockets and runtime directories of its Neovims, Vims and agents) and the run's XDG
// directories are outside every place a running agent of this user scans for Neovim sockets, so
// that a user's `npm start` beside `npm test` attaches none of the tests' editors; and nothing of
// the user's own editor is handed on.
import { tmpdir } from 'node:os';
import { inject, it, expect } from 'vitest';
import { isolatedHome } from '../helpers/home.ts';
import { startNvim } from '../helpers/nvim.ts';
import { within } from './hermetic.ts';

it('puts every test directory and Neovim socket where no agent of the user looks', async () => {
  const scans = inject('agentScans');
  expect(scans).toContain('/tmp');
  const { env } = isolatedHome('vimrelay-hermetic-');
  const nvim = await startNvim();
  try {
    const places = [tmpdir(), process.env.XDG_RUNTIME_DIR, process.env.XDG_CONFIG_HOME, process.env.XDG_STATE_HOME, env.HOME, env.XDG_RUNTIME_DIR, nvim.socket];
    for (const place of places) {
      expect(place).toBeTruthy();
      for (const scanned of scans) expect(within(String(place), scanned), `${String(place)} is below ${scanned}`).toBe(false);
    }
  } finally {
    await nvim.stop();
  }
  expect(process.env.NVIM).toBeUndefined();
  expect(process.env.NVIM_LISTEN_ADDRESS).toBeUndefined();
});
