// The rule of who serves Vims (agent/editors/vim/holder.ts), as an attacker would test it: serve
// yields the Vim socket to a running agent that its own status file names, and to nothing another
// account could have written — a status.json others may write, or one another account owns.
import { chmodSync, chownSync, mkdirSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paths } from '../../../../agent/config/paths.ts';
import { agentToYieldTo, holderFile, readHolder, removeHolder, writeHolder } from '../../../../agent/editors/vim/holder.ts';
import { isolatedHome } from '../../../helpers/home.ts';
import { itAsOther, OTHER_UID } from '../../../helpers/other-user.ts';

describe('serve yields Vims to a running agent its own files name', () => {
  // A live process other than this one, standing for a running agent.
  const other = spawn('sleep', ['600'], { stdio: 'ignore' });
  let env: NodeJS.ProcessEnv;
  let status: string;
  const write = (pid: number | undefined, state = 'connected'): void => {
    writeFileSync(status, JSON.stringify({ pid, relay_url: 'https://relay.example', state, device: 'd', reason: null, editors: [], updated_at: '2026-01-01T00:00:00Z' }), { mode: 0o600 });
    chmodSync(status, 0o600);
  };

  beforeAll(() => {
    env = isolatedHome('vimrelay-holder-').env;
    status = paths(env).status;
    mkdirSync(paths(env).stateDir, { recursive: true, mode: 0o700 });
  });

  afterAll(() => void other.kill('SIGKILL'));

  it('yields to a live agent, not to a stopped one, this process, or none', () => {
    expect(agentToYieldTo(env)).toBeUndefined();
    write(other.pid);
    expect(agentToYieldTo(env)).toEqual({ pid: other.pid, relay: 'https://relay.example' });
    write(other.pid, 'stopped');
    expect(agentToYieldTo(env)).toBeUndefined();
    write(process.pid);
    expect(agentToYieldTo(env)).toBeUndefined();
  });

  it('does not obey a status file others may write', () => {
    write(other.pid);
    chmodSync(status, 0o666);
    expect(agentToYieldTo(env)).toBeUndefined();
  });

  itAsOther('does not obey a status file another account owns', () => {
    write(other.pid);
    chownSync(status, OTHER_UID, OTHER_UID);
    expect(agentToYieldTo(env)).toBeUndefined();
  });

  it('the holder file: read while its process lives, removed only by its own process', () => {
    const file = holderFile(env);
    writeHolder(file, { pid: other.pid ?? 0, role: 'serve', relay: null });
    expect(readHolder(file)).toEqual({ pid: other.pid, role: 'serve', relay: null });
    removeHolder(file, process.pid);
    expect(readHolder(file)).toBeDefined();
    removeHolder(file, other.pid ?? 0);
    expect(readHolder(file)).toBeUndefined();
  });
});
