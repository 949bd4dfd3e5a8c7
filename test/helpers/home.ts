/**
 * `isolatedHome()`: a temporary HOME with its own XDG directories and TMPDIR, so that whatever a
 * test starts (nvim, vim, the agent) writes nothing in the user's home and sees no other run's
 * files. NVIM and NVIM_LISTEN_ADDRESS are dropped: a test run inside a Neovim terminal must not
 * hand that Neovim to what it starts. Every home is removed after the test file (helpers/temp.ts).
 * Each home holds a permissive policy file (every class allowed; test/helpers/policy.ts), so that
 * an agent started there never waits on a prompt; a test of the policy overwrites it.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { writePermissivePolicy } from './policy.ts';
import { tempDir } from './temp.ts';

export function isolatedHome(prefix: string): { home: string; env: NodeJS.ProcessEnv } {
  const home = tempDir(prefix);
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.NVIM;
  delete env.NVIM_LISTEN_ADDRESS;
  const dirs = { XDG_CONFIG_HOME: 'config', XDG_DATA_HOME: 'data', XDG_STATE_HOME: 'state', XDG_CACHE_HOME: 'cache', XDG_RUNTIME_DIR: 'run', TMPDIR: 'tmp' };
  for (const [variable, dir] of Object.entries(dirs)) {
    env[variable] = join(home, dir);
    mkdirSync(join(home, dir));
  }
  env.HOME = home;
  writePermissivePolicy(join(home, 'config'));
  return { home, env };
}
