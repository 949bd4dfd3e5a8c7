// Every dependency's install script is decided in its package.json, run or not: npm 11.19 and
// later run no dependency's install script unless `allowScripts` says so, and end every install
// with a warning naming the ones it skipped. Each dependency that has one (the lockfile says
// which) is decided, so that `npm install` and `npm ci` finish without that warning and the
// decision is made once, here, not by each user. For the repository and for test/peers.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../scripts/local-relay.ts';

describe('install scripts', () => {
  it.each([ROOT, join(ROOT, 'test', 'peers')])('are decided for every dependency that has one (%s)', (dir) => {
    const lock = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8')) as { packages: Record<string, { hasInstallScript?: boolean }> };
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { allowScripts?: Record<string, boolean> };
    const withScripts = Object.entries(lock.packages)
      .filter(([, entry]) => entry.hasInstallScript === true)
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
    expect(withScripts.length).toBeGreaterThan(0);
    expect([...new Set(withScripts)].filter((name) => typeof manifest.allowScripts?.[name] !== 'boolean')).toEqual([]);
  });
});
