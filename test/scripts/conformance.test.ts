// `npm run conformance` (scripts/conformance.ts), the README's recipe for the peers' tools, as a user
// runs it: with no arguments it starts a `vimrelay serve --http` of its own, runs the MCP
// conformance suite (Node 22 from test/peers, the token added by the tests' proxy) in both eras
// against the committed baselines and the MCP Inspector's CLI (tools/list, with its schema lint)
// in both eras, and exits 0 saying so; given one argument, it says how to call it.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TOOLS } from '../../protocol/index.ts';
import { ROOT } from '../../scripts/local-relay.ts';
import { peersMissing } from '../helpers/peers.ts';

const missing = peersMissing();
if (missing) console.warn(`skipping npm run conformance: ${missing}`);

const SCRIPT = join(ROOT, 'scripts', 'conformance.ts');

function conformance(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', SCRIPT, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 240_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe.skipIf(missing !== null)('npm run conformance', () => {
  it('runs the suite in both eras and the Inspector in both, against a serve of its own, and passes', () => {
    const run = conformance([]);
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toMatch(/^== vimrelay serve --http of its own at http:\/\/127\.0\.0\.1:\d+\/mcp$/m);
    expect(run.stdout.match(/Baseline check passed/g)).toHaveLength(2);
    expect(run.stdout.match(new RegExp(`^${TOOLS.length} tools listed$`, 'gm'))).toHaveLength(2);
    expect(run.stderr).not.toMatch(/^(Warning|Error): tool/m);
    expect(run.stdout).toContain('conformance: every check passed');
  }, 300_000);

  it('says how to call it when given one argument', () => {
    const run = conformance(['http://127.0.0.1:8787/mcp']);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('usage: npm run conformance [-- <MCP URL> <access token>]');
  });
});
