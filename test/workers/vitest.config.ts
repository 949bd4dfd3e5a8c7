// Worker tests: run inside workerd (@cloudflare/vitest-pool-workers) against the real Worker,
// its Hub Durable Object, SQLite storage and WebSockets. Three projects, because bindings are fixed
// per project: `workers` with the defaults and an owner secret; `workers-config` with a short
// CALL_DEADLINE_MS (so that TIMEOUT comes in milliseconds), PUBLIC_URL, ALLOWED_ORIGINS and no
// OWNER_SECRET; `workers-egress` whose global fetch reaches a recorded test network
// (egress/network.ts) instead of the internet.
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { cloudflareTest } from '@cloudflare/vitest-pool-workers';
import { defineConfig, type Plugin } from 'vitest/config';
import { log, network } from './egress/network.ts';

const wranglerConfig = fileURLToPath(new URL('../../wrangler.toml', import.meta.url));
const root = fileURLToPath(new URL('../..', import.meta.url));

type Miniflare = { outboundService?: (request: Request) => Response; serviceBindings?: Record<string, (request: Request) => Response> };

/**
 * Lets workerd load the npm packages (hono, jose, zod, the MCP SDK, ...) as modules of its own,
 * where @cloudflare/vitest-pool-workers has Vite's module runner transform and send every one of
 * them to every test file (`server.deps.inline = true`). They resolve as before (Vite's resolver,
 * with the pool's workerd conditions; pool/module-fallback.ts); only the project's own code goes
 * through the runner. On 2 cores the suite took 126 s and 211 CPU-s before, 92 s and 150 after;
 * at six workers the first import of the Worker alone had outlasted a test's 20 s. Runs after the
 * pool's own plugin, whose `config` hook it amends.
 */
const nativePackages: Plugin = {
  name: 'vimrelay:native-packages',
  config(config) {
    config.test = { ...config.test, server: { ...config.test?.server, deps: { ...config.test?.server?.deps, inline: [] } } };
  },
};

function project(name: string, include: string[], bindings: Record<string, string>, extra: Miniflare = {}) {
  return {
    root,
    plugins: [cloudflareTest({ wrangler: { configPath: wranglerConfig }, miniflare: { bindings, ...extra } }), nativePackages],
    test: { name, include, testTimeout: 20_000, hookTimeout: 20_000 },
  };
}

export default defineConfig({
  test: {
    // Temporary and XDG directories of the run's own (wrangler and Miniflare write there).
    globalSetup: ['test/setup/hermetic.ts'],
    // Each file runs in a workerd of its own and mostly waits on it: Vitest's default (one worker
    // on 2 cores) took 173 s and 134 s of CPU; 4 at once took 70 s and 101 s of CPU.
    maxWorkers: Math.min(4, 2 * availableParallelism()),
    projects: [
      // A throwaway owner secret, for tests only; one extra OAuth redirect URI (oauth.test.ts).
      project('workers', ['test/workers/*.test.ts'], {
        OWNER_SECRET: 'test-owner-secret-not-for-production',
        OWNER_USER: 'test-owner-user',
        REDIRECT_URIS: 'https://app.example/oauth/callback, https://tool.example/cb',
      }),
      project('workers-config', ['test/workers/config/*.test.ts'], {
        // Empty, not absent: it overrides the .dev.vars that `npm start` writes into the checkout.
        OWNER_SECRET: '',
        CALL_DEADLINE_MS: '200',
        PUBLIC_URL: 'https://public.example/some/path',
        ALLOWED_ORIGINS: 'https://app.example, not a url',
      }),
      project(
        'workers-egress',
        ['test/workers/egress/*.test.ts'],
        { OWNER_SECRET: 'test-owner-secret-not-for-production' },
        { outboundService: network, serviceBindings: { EGRESS_LOG: log } },
      ),
    ],
  },
});
