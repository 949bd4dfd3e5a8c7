/**
 * `withRelay()`: a real relay in `wrangler dev` on a free port with its own persistence and
 * owner secret, plus helpers to mint tokens through the admin route. Stop it in afterAll: that
 * also removes its directory (persistence and wrangler's log).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mintToken, type MintRequest } from '../../agent/relay/admin.ts';
import { freePort, startLocalRelay } from '../../scripts/local-relay.ts';

export interface TestRelay {
  url: string;
  mcpUrl: string;
  ownerSecret: string;
  dir: string;
  mint(req: MintRequest): Promise<string>;
  /** Stops the relay and starts it again on the same port and storage, as a deploy does. */
  restart(): Promise<void>;
  /** Stops the relay, keeping its port and storage for `up()`: an outage. */
  down(): Promise<void>;
  /** Starts the relay again after `down()`. */
  up(): Promise<void>;
  stop(): Promise<void>;
}

export async function withRelay(vars: Record<string, string> = {}): Promise<TestRelay> {
  const dir = mkdtempSync(join(tmpdir(), 'vimrelay-relay-'));
  const ownerSecret = randomBytes(24).toString('base64url');
  const options = {
    port: await freePort(),
    persistTo: join(dir, 'state'),
    logFile: join(dir, 'wrangler.log'),
    vars: { OWNER_SECRET: ownerSecret, ...vars },
  };
  let relay = await startLocalRelay(options);
  return {
    url: relay.url,
    mcpUrl: `${relay.url}/mcp`,
    ownerSecret,
    dir,
    mint: async (req) => (await mintToken(relay.url, ownerSecret, req)).token,
    async restart() {
      await relay.stop();
      relay = await startLocalRelay(options);
    },
    async down() {
      await relay.stop();
    },
    async up() {
      relay = await startLocalRelay(options);
    },
    async stop() {
      await relay.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
