/**
 * The names a client chooses for a device or a token, and the hostnames devices report, as the
 * relay takes them (worker/routes/names.ts). They end up in editor ids (`<device>/<editor>`), in
 * client ids (`pat:<name>`) and on the owner's pages: no control characters and no `/`. The CLI
 * checks a name before it sends one, and picks a default that passes.
 */

/** Longest device or token name (characters); the relay's suffixes (`-2`) come on top. */
export const MAX_DEVICE_NAME = 64;

/** Longest hostname (RFC 1035 §2.3.4: 253 characters of text). */
export const MAX_HOSTNAME = 253;

/** Whether `text` holds a control character or a `/`. */
function hasControlOrSlash(text: string): boolean {
  return [...text].some((ch) => ch === '/' || ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f);
}

/** Why `name` cannot be a name of at most `max` characters (a device's, a token's, a hostname), or null. */
export function nameProblem(name: string, max: number): string | null {
  if (name.length === 0 || name.length > max) return `must be 1 to ${max} characters`;
  if (hasControlOrSlash(name)) return 'must not contain control characters or "/"';
  return null;
}

/** Why `name` cannot be a device or token name, or null when it can. */
export function deviceNameProblem(name: string): string | null {
  return nameProblem(name, MAX_DEVICE_NAME);
}

/**
 * The device name for a machine called `host` when none is given: the hostname itself when it is
 * a valid name; else its first label (a fully qualified name's host part); else the hostname cut to
 * the longest name, with its control characters and `/` made `-`.
 */
export function defaultDeviceName(host: string): string {
  if (deviceNameProblem(host) === null) return host;
  const label = host.split('.')[0] ?? '';
  if (deviceNameProblem(label) === null) return label;
  const cleaned = [...host].map((ch) => (hasControlOrSlash(ch) ? '-' : ch)).join('');
  return cleaned.slice(0, MAX_DEVICE_NAME) || 'device';
}
