/**
 * `withRelay()`: a real relay in local workerd (`scripts/local-relay.ts`, as `npm start` runs it)
 * on a free port with its own persistence and owner secret, plus helpers to mint tokens through
 * the admin route. Stop it in afterAll: that also removes its directory (persistence, the bundle
 * and the relay's log).
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
  /** The relay's OWNER_USER, as `npm start` makes one. */
  ownerUser: string;
  dir: string;
  mint(req: MintRequest): Promise<string>;
  /**
   * Approves or denies the pairing request with `code` as the owner's browser does (signed in, the
   * approval page, its CSRF form); resolves with the approval page's HTML.
   */
  decidePairing(code: string, approve: boolean): Promise<string>;
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
  const ownerUser = `owner-${randomBytes(12).toString('base64url')}`;
  const options = {
    port: await freePort(),
    persistTo: join(dir, 'state'),
    logFile: join(dir, 'relay.log'),
    vars: { OWNER_SECRET: ownerSecret, OWNER_USER: ownerUser, ...vars },
  };
  let relay = await startLocalRelay(options);
  return {
    url: relay.url,
    mcpUrl: `${relay.url}/mcp`,
    ownerSecret,
    ownerUser,
    dir,
    mint: async (req) => (await mintToken(relay.url, ownerSecret, req)).token,
    decidePairing: (code, approve) => decidePairing(relay.url, ownerSecret, code, approve),
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

/**
 * The Authorization header value a browser sends once the owner has typed the secret into its
 * prompt: the local relay's pages sign in with HTTP Basic (worker/auth/basic-owner.ts).
 */
export function ownerBasic(ownerSecret: string, user = 'owner'): string {
  return `Basic ${Buffer.from(`${user}:${ownerSecret}`, 'utf8').toString('base64')}`;
}

async function decidePairing(url: string, ownerSecret: string, code: string, approve: boolean): Promise<string> {
  const owner = { Authorization: ownerBasic(ownerSecret) };
  const page = await fetch(`${url}/pair?code=${code}`, { headers: owner });
  const text = await page.text();
  if (page.status !== 200) throw new Error(`the approval page answered ${page.status}: ${text}`);
  const csrf = /name="csrf" value="([^"]+)"/.exec(text)?.[1] ?? '';
  const res = await fetch(`${url}/pair/${approve ? 'approve' : 'deny'}`, { method: 'POST', headers: owner, body: new URLSearchParams({ csrf, code }) });
  if (res.status !== 200) throw new Error(`${approve ? 'approving' : 'denying'} answered ${res.status}`);
  return text;
}
