// The relay process's own script (scripts/relay-bundle.ts), bundled by esbuild in a copy of the
// project: built once, reused while the scripts are unchanged, built anew when one changes, and
// run by Node alone (no TypeScript loader), its packages found in the project's node_modules.
import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ROOT } from '../../scripts/local-relay.ts';
import { relayScript } from '../../scripts/relay-bundle.ts';

let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'vimrelay-relay-bundle-'));
  for (const entry of ['scripts', 'agent/config', 'package.json', 'package-lock.json']) cpSync(join(ROOT, entry), join(root, entry), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'));
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

it('is built once, reused while the scripts are unchanged, and built anew when one changes', async () => {
  const first = await relayScript(root);
  expect(first.startsWith(join(root, '.wrangler', 'relay'))).toBe(true);
  const built = statSync(first).mtimeMs;
  expect(await relayScript(root)).toBe(first);
  expect(statSync(first).mtimeMs).toBe(built);

  appendFileSync(join(root, 'scripts', 'state-lock.ts'), '\n// changed\n');
  const changed = await relayScript(root);
  expect(changed).not.toBe(first);
  expect(readFileSync(changed, 'utf8')).toContain('relay.lock');
}, 60_000);

it('runs with Node alone: no TypeScript is left in it, and Miniflare comes from node_modules', async () => {
  const script = await relayScript(root);
  expect(readFileSync(script, 'utf8')).not.toMatch(/from ["']\.\.?\//);
  const run = spawnSync(process.execPath, [script, '--port', 'none'], { cwd: root, encoding: 'utf8', input: '' });
  expect(run.status).not.toBe(0);
  expect(run.stderr).toContain('usage: relay-process.ts --port N --persist-to DIR');
}, 60_000);
