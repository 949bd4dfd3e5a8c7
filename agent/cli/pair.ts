/**
 * `vimrelay pair <relay-url> [--name NAME] [--ticket TICKET]`: pairs this machine with a relay by
 * the device flow (RFC 8628); a ticket from the relay's /pair page (the owner's, signed in) gets the
 * request in past every pairing limit. Prints the user code and the verification URL (and a QR code of the URL with the
 * code in it when stdout is a terminal), waits for the owner with a spinner on stderr (terminal
 * only), and on approval saves the device credential for that relay in the credentials file
 * (0600). Ctrl-C cancels the request on the relay, so that its code can no longer be approved.
 * Exit codes: 0 paired, 1 denied / expired / failed, 130 interrupted.
 */
import { hostname } from 'node:os';
import { renderUnicodeCompact } from 'uqr';
import { saveRelayCredentials } from '../config/credentials.ts';
import { paths } from '../config/paths.ts';
import { normaliseRelayUrl, requireSecureRelay } from '../config/relay-url.ts';
import { cancelPairing, PairingFailed, pollPairing, startPairing, type StartedPairing } from '../relay/pairing.ts';
import { deviceName } from './names.ts';
import { interrupted } from './signals.ts';
import { printable, printableLines } from './printable.ts';

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** How long Ctrl-C waits for the relay to confirm the cancellation. */
const CANCEL_TIMEOUT_MS = 5_000;

/** Tells the relay the request is cancelled; the line that says whether its code can still be approved. */
async function cancelled(relay: string, started: StartedPairing, expiresAtMs: number): Promise<string> {
  try {
    await cancelPairing(relay, started, CANCEL_TIMEOUT_MS);
    return `vimrelay: pairing cancelled; code ${printable(started.user_code)} can no longer be approved, and nothing was saved\n`;
  } catch (err) {
    const minutes = Math.max(1, Math.ceil((expiresAtMs - Date.now()) / 60_000));
    return (
      `vimrelay: pairing cancelled here and nothing was saved, but the relay could not be told (${printable(err instanceof Error ? err.message : String(err))}):\n` +
      `  code ${printable(started.user_code)} stays valid for up to ${minutes} min; do not approve it, or dismiss it at ${printable(started.verification_uri)}\n`
    );
  }
}

/** A one-line spinner on stderr when it is a terminal; nothing otherwise. */
function spinner(expiresAtMs: number): { stop(): void } {
  if (!process.stderr.isTTY) {
    process.stderr.write('Waiting for approval...\n');
    return { stop() {} };
  }
  let frame = 0;
  const draw = (): void => {
    const left = Math.max(0, Math.round((expiresAtMs - Date.now()) / 1000));
    const clock = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')}`;
    process.stderr.write(`\r\x1b[2K${SPINNER[frame++ % SPINNER.length]} Waiting for approval (code expires in ${clock}; Ctrl-C to cancel)`);
  };
  draw();
  const timer = setInterval(draw, 100);
  return {
    stop() {
      clearInterval(timer);
      process.stderr.write('\r\x1b[2K');
    },
  };
}

export async function pairCommand(url: string | undefined, values: { name?: string; ticket?: string; insecure?: boolean }): Promise<number> {
  if (!url) throw new Error('usage: vimrelay pair <relay-url> [--name NAME] [--ticket TICKET] [--insecure]');
  const relay = requireSecureRelay(normaliseRelayUrl(url), values.insecure ?? false);
  const stopped = interrupted();
  const abort = new AbortController();
  void stopped.then(() => abort.abort(new Error('interrupted')));

  const name = deviceName(values.name);
  const host = hostname();
  const started = await startPairing(relay, name, host, values.ticket);
  const expiresAtMs = Date.now() + started.expires_in * 1000;
  const tty = process.stdout.isTTY;
  const userCode = printable(started.user_code);
  const code = tty ? `\x1b[1m${[...userCode].join(' ')}\x1b[0m` : userCode;
  process.stdout.write(
    [
      `To pair this machine (${host}) as device "${name}", open this page, sign in as the relay owner, and check the code:`,
      '',
      `  ${printable(started.verification_uri_complete)}`,
      '',
      `  Code: ${code}`,
      '',
      `(Or open ${printable(started.verification_uri)} and type the code.)`,
      ...(tty ? ['', renderUnicodeCompact(started.verification_uri_complete)] : []),
      '',
    ].join('\n'),
  );

  const spin = spinner(expiresAtMs);
  try {
    const granted = await pollPairing(relay, started, { signal: abort.signal });
    spin.stop();
    const file = paths().credentials;
    saveRelayCredentials(file, relay, { device_credential: granted.credential });
    // The relay names it as its page did: `name-2` when another device has `name`.
    const renamed = granted.device.name === name ? '' : ` (another device is named "${printable(name)}")`;
    process.stdout.write(`Paired as device "${printable(granted.device.name)}"${renamed}. Credential saved in ${printable(file)}.\nNext: vimrelay agent --relay ${printable(relay)}${values.insecure ? ' --insecure' : ''}\n`);
    return 0;
  } catch (err) {
    spin.stop();
    if (abort.signal.aborted) {
      process.stderr.write(await cancelled(relay, started, expiresAtMs));
      return 130;
    }
    if (err instanceof PairingFailed) {
      process.stderr.write(`vimrelay: not paired: ${printableLines(err.message)}\n`);
      return 1;
    }
    throw err;
  }
}
