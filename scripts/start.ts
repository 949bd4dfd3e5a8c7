/**
 * `npm start`: the relay in local workerd with this machine's agent attached.
 *
 * Generates the owner secret and user name into `.dev.vars` (0600, git-ignored) on first run, starts the relay
 * in local workerd (`local-relay.ts`: no debugger, state 0600 in 0700 directories) on
 * 127.0.0.1:$PORT (default 8787) with persistence under `.wrangler/`, creates
 * this machine's device and a local access token through the admin API (reusing stored ones while
 * the relay still accepts them), starts the agent, and prints the MCP URL, the token and the
 * dashboard's URL. What it starts, it supervises and stops: Ctrl-C, SIGTERM or the terminal
 * closing (SIGHUP) stop the agent and the relay; if the launcher itself is killed, the relay stops
 * when its stdin closes (relay-process.ts); if the relay's process exits, or workerd stops
 * answering while it lives, it says so and stops. Another agent that takes over the device (the
 * newer wins) leaves the relay running for that agent. A port already in use is refused before anything is started or
 * printed, naming the vimrelay relay that holds it if one does, and so is a state directory a live
 * relay uses (another `npm start` on another port in the same checkout), naming that relay: a
 * second `npm start` leaves the first one, and its agent, alone.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { relayCredentials, saveRelayCredentials } from '../agent/config/credentials.ts';
import { paths } from '../agent/config/paths.ts';
import { ensurePrivateDir, readOptionalFile, writePrivateFile } from '../agent/config/private-file.ts';
import { defaultSocketDirs } from '../agent/editors/nvim/discovery.ts';
import { createEditorSource } from '../agent/editors/source.ts';
import { createLogger } from '../agent/log.ts';
import { createDevice, mintToken, tokenIsValid } from '../agent/relay/admin.ts';
import { CredentialRefused, DeviceTokens } from '../agent/relay/device-token.ts';
import { ownPlaces, type OwnPlace } from '../agent/policy/own-files.ts';
import { openCallGuard } from '../agent/policy/setup.ts';
import { loadTakeoverProof } from '../agent/relay/takeover.ts';
import { startAgent } from '../agent/run.ts';
import { PortInUse, ROOT, startLocalRelay, StateInUse } from './local-relay.ts';

const { values } = parseArgs({
  options: {
    'persist-to': { type: 'string', default: join(ROOT, '.wrangler', 'state') },
    'discover-dir': { type: 'string', multiple: true },
  },
});

/**
 * The variable `name` of .dev.vars, added to the file (0600) with a value `make` generates when it
 * is not there: OWNER_SECRET on the first run, OWNER_USER on the first run that knows of it.
 */
function devVar(name: string, make: () => string): string {
  const file = join(ROOT, '.dev.vars');
  const existing = readOptionalFile(file)?.match(new RegExp(`^${name}\\s*=\\s*"?([^"\\n]+)"?\\s*$`, 'm'))?.[1];
  if (existing) return existing;
  const value = make();
  const rest = readOptionalFile(file) ?? '';
  writePrivateFile(file, `${rest}${rest && !rest.endsWith('\n') ? '\n' : ''}${name}="${value}"\n`);
  return value;
}

/**
 * The owner's credentials for this relay: OWNER_SECRET, and OWNER_USER, the user name that sets the
 * owner's sign-ins apart from another local account's wrong guesses (worker/hub/owner-guesses.ts).
 */
function ownerCredentials(): { user: string; secret: string } {
  const secret = devVar('OWNER_SECRET', () => randomBytes(32).toString('base64url'));
  // 96 random bits: the name is never guessed (the header of owner-guesses.ts says why that matters).
  const user = devVar('OWNER_USER', () => `owner-${randomBytes(12).toString('base64url')}`);
  return { user, secret };
}

type Owner = ReturnType<typeof ownerCredentials>;

/** This checkout's owner secret and the relay's storage: out of every tool's reach, wherever `--persist-to` put it. */
function relaySecrets(persistTo: string): OwnPlace[] {
  return [
    { path: join(ROOT, '.dev.vars'), kind: 'dev_vars' },
    { path: resolve(persistTo), kind: 'relay_storage' },
  ];
}

/** The stored device credential while the relay accepts it; else a new device's. */
async function deviceCredential(relay: string, owner: Owner): Promise<string> {
  const file = paths().credentials;
  const stored = relayCredentials(file, relay).device_credential;
  if (stored) {
    try {
      await new DeviceTokens({ relayUrl: relay, credential: stored }).get();
      return stored;
    } catch (err) {
      if (!(err instanceof CredentialRefused)) throw err;
    }
  }
  const { credential } = await createDevice(relay, owner, hostname(), hostname());
  saveRelayCredentials(file, relay, { device_credential: credential });
  return credential;
}

/** The stored local access token while the relay accepts it; else a new one. */
async function accessToken(relay: string, owner: Owner): Promise<string> {
  const file = paths().credentials;
  const stored = relayCredentials(file, relay).access_token;
  if (stored && (await tokenIsValid(relay, owner, stored))) return stored;
  const minted = await mintToken(relay, owner, { kind: 'access', name: 'local' });
  saveRelayCredentials(file, relay, { access_token: minted.token });
  return minted.token;
}

async function main(): Promise<void> {
  const logger = createLogger();
  const owner = ownerCredentials();
  const port = Number(process.env.PORT ?? 8787);
  // The agent's state directory (its status, logs and the relay's log) is the user's alone.
  ensurePrivateDir(paths().stateDir);
  const logFile = join(paths().stateDir, 'relay-dev.log');
  // Ctrl-C may come at any moment, even while wrangler is still starting: every path out goes
  // through shutdown(), which waits for the relay to be stopped before exiting.
  const startup = new AbortController();
  const starting = startLocalRelay({ port, persistTo: values['persist-to'], logFile, vars: { OWNER_SECRET: owner.secret, OWNER_USER: owner.user }, signal: startup.signal });
  let agent: ReturnType<typeof startAgent> | undefined;
  // One shutdown, whoever asks first: a Ctrl-C reaches this process both from the terminal and
  // forwarded by npm, and a later request must wait for the relay too, not exit early.
  let stopped: Promise<never> | undefined;
  const shutdown = (code: number): Promise<never> =>
    (stopped ??= (async () => {
      startup.abort();
      try {
        await agent?.stop();
      } catch (err) {
        logger.error('the agent did not stop cleanly', { error: err instanceof Error ? err.message : String(err) });
      } finally {
        // Whatever happened above, the relay runs in its own process group: stop it.
        await (await starting.catch(() => undefined))?.stop();
      }
      process.exit(code);
    })());
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));
  // The terminal closed: its foreground group gets SIGHUP, the relay's own group does not.
  process.on('SIGHUP', () => void shutdown(0));

  try {
    const relay = await starting;
    relay.process.once('exit', (code, signal) => {
      if (stopped === undefined) {
        logger.error('the relay (local workerd) exited', { code, signal, log: logFile });
        void shutdown(1);
      }
    });
    watchRelay(relay.url, () => {
      if (stopped !== undefined) return;
      logger.error('the relay stopped answering while its process still runs (workerd exited?); stopping', { url: relay.url, log: logFile });
      void shutdown(1);
    });
    const credential = await deviceCredential(relay.url, owner);
    const token = await accessToken(relay.url, owner);
    const dirs = values['discover-dir'] ?? defaultSocketDirs();
    const editors = createEditorSource({ logger, vim: true, dirs });
    agent = startAgent({ relayUrl: relay.url, deviceCredential: credential, takeoverProof: loadTakeoverProof(paths().takeoverKey, relay.url), editors, guard: openCallGuard(paths(), ownPlaces(process.env, relaySecrets(values['persist-to']))), logger, statusFile: paths().status, watching: dirs });
    void agent.done.then((end) => {
      // Another agent took over this machine's device (`vimrelay agent`, a service): it needs the
      // relay, which keeps running for it. A revoked device is the end.
      if (end.kind === 'replaced') logger.info('another agent now serves this device; the relay keeps running for it (Ctrl-C stops the relay)', { relay: relay.url });
      else if (end.kind !== 'stopped') void shutdown(1);
    });
    process.stdout.write(
      [
        `vimrelay relay running in local workerd, with this machine's agent attached.`,
        `MCP URL: ${relay.url}/mcp`,
        `Access token: ${token}`,
        `Dashboard: ${relay.url}/dashboard (your browser asks: user name ${owner.user}, password OWNER_SECRET from .dev.vars)`,
        `Claude Code: claude mcp add --transport http vimrelay ${relay.url}/mcp --header "Authorization: Bearer <access token>"`,
        `Press Ctrl-C to stop.`,
        '',
      ].join('\n'),
    );
  } catch (err) {
    if (stopped !== undefined) return;
    logger.error(err instanceof Error ? err.message : String(err));
    await shutdown(err instanceof PortInUse || err instanceof StateInUse ? 2 : 1);
  }
}

/** Health checks of the running relay; how many refusals in a row mean that nothing listens any more. */
const WATCH_MS = 2_000;
const REFUSALS = 3;

/**
 * Calls `onDead` once the relay's port refuses connections REFUSALS times in a row, WATCH_MS apart:
 * workerd is gone though wrangler may live on (it does not restart it). A slow answer is no refusal.
 */
function watchRelay(url: string, onDead: () => void): void {
  let refused = 0;
  const timer = setInterval(() => {
    fetch(`${url}/health`, { signal: AbortSignal.timeout(WATCH_MS) }).then(
      async (res) => {
        await res.body?.cancel();
        refused = 0;
      },
      (err: unknown) => {
        const code = (err as { cause?: { code?: unknown } }).cause?.code;
        refused = code === 'ECONNREFUSED' ? refused + 1 : 0;
        if (refused >= REFUSALS) {
          clearInterval(timer);
          onDead();
        }
      },
    );
  }, WATCH_MS);
  timer.unref();
}

await main();
