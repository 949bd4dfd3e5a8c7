// The local relay's Worker bundle (scripts/worker-bundle.ts), built by wrangler's real command line
// in a copy of the project: built once, reused while its sources are unchanged, built anew when
// one changes, with the Miniflare options wrangler derives from wrangler.toml beside it; older
// bundles and unfinished builds removed once they are old.
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ROOT } from '../../scripts/local-relay.ts';
import { localWorker } from '../../scripts/worker-bundle.ts';

let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'vimrelay-bundle-'));
  for (const entry of ['worker', 'protocol', 'package.json', 'package-lock.json', 'wrangler.toml', 'tsconfig.json', 'tsconfig.base.json']) cpSync(join(ROOT, entry), join(root, entry), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'));
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

it('is built once, reused while its sources are unchanged, and built anew when one changes', async () => {
  const first = await localWorker(root);
  expect(first.name).toBe('vimrelay');
  expect(first.options.durableObjects).toEqual({ HUB: { className: 'Hub', useSQLite: true } });
  expect(first.options.compatibilityFlags).toContain('enable_request_signal');
  const built = statSync(first.scriptPath).mtimeMs;

  const again = await localWorker(root);
  expect(again.scriptPath).toBe(first.scriptPath);
  expect(statSync(again.scriptPath).mtimeMs).toBe(built);

  appendFileSync(join(root, 'worker', 'env.ts'), '\n// changed\n');
  const changed = await localWorker(root);
  expect(changed.scriptPath).not.toBe(first.scriptPath);
  expect(statSync(changed.scriptPath).size).toBeGreaterThan(100_000);
  // Another relay may still start on the first one: kept while it is recent.
  expect(existsSync(first.scriptPath)).toBe(true);
}, 60_000);

it('removes older bundles and unfinished builds once a new bundle is in place and they are ten minutes old', async () => {
  const kept = await localWorker(root);
  const bundles = dirname(dirname(kept.scriptPath));
  const unfinished = join(bundles, '0123456789abcdef-AbCd12');
  mkdirSync(unfinished);
  const old = new Date(Date.now() - 11 * 60_000);
  utimesSync(dirname(kept.scriptPath), old, old);
  utimesSync(unfinished, old, old);
  appendFileSync(join(root, 'protocol', 'limits.ts'), '\n// changed again\n');
  const next = await localWorker(root);
  expect(existsSync(next.scriptPath)).toBe(true);
  expect(existsSync(kept.scriptPath)).toBe(false);
  expect(existsSync(unfinished)).toBe(false);
}, 60_000);
