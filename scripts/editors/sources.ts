/**
 * The archive this machine installs from, read from its apt sources at run time (never a host
 * written down here): the `deb` entry that serves the machine's own release (its VERSION_CODENAME
 * in os-release; Debian's or Ubuntu's) from component `main`, in either format apt reads: one-line
 * `sources.list` files and deb822 `.sources` files (sources.list(5)). A Debian archive's URI serves every
 * Debian suite, the newer ones the editors come from included; its `Signed-By` (if any) names the keyring
 * that verifies them.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface DebianArchive {
  uri: string;
  /** The keyring the machine's entry names (`Signed-By`), if it names one. */
  signedBy?: string;
}

interface Entry {
  types: string[];
  uris: string[];
  suites: string[];
  components: string[];
  signedBy?: string;
}

/** The entries of a one-line `sources.list` file: `deb [options] uri suite component...`. */
export function oneLineEntries(text: string): Entry[] {
  const entries: Entry[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*/, '').trim();
    const match = /^(\S+)\s+(?:\[([^\]]*)\]\s+)?(\S+)\s+(\S+)\s*(.*)$/.exec(line);
    if (!match) continue;
    const [, type = '', options = '', uri = '', suite = '', components = ''] = match;
    const signedBy = /(?:^|\s)signed-by=(\S+)/.exec(options)?.[1];
    entries.push({ types: [type], uris: [uri], suites: [suite], components: components.split(/\s+/).filter(Boolean), ...(signedBy ? { signedBy } : {}) });
  }
  return entries;
}

/** The entries of a deb822 `.sources` file: stanzas of `Field: value` lines, blank-line separated. */
export function deb822Entries(text: string): Entry[] {
  return text
    .split(/\n\s*\n/)
    .map((stanza) => {
      const fields = new Map<string, string>();
      let last = '';
      for (const line of stanza.split('\n')) {
        if (line.startsWith('#')) continue;
        const field = /^([\w-]+):\s*(.*)$/.exec(line);
        if (field) fields.set((last = (field[1] ?? '').toLowerCase()), field[2] ?? '');
        // A continuation line (an inline keyring); only a keyring's path is of use here.
        else if (/^\s/.test(line) && last) fields.set(last, `${fields.get(last) ?? ''}\n${line.trim()}`);
      }
      const words = (name: string): string[] => (fields.get(name) ?? '').split(/\s+/).filter(Boolean);
      const signedBy = fields.get('signed-by');
      const enabled = (fields.get('enabled') ?? 'yes').trim() !== 'no';
      return enabled ? { types: words('types'), uris: words('uris'), suites: words('suites'), components: words('components'), ...(signedBy && !signedBy.includes('\n') ? { signedBy: signedBy.trim() } : {}) } : undefined;
    })
    .filter((entry): entry is Entry => entry !== undefined && entry.uris.length > 0);
}

/** The entry among `entries` that serves `codename` from `main`, as a DebianArchive. */
export function archiveFor(entries: readonly Entry[], codename: string): DebianArchive | undefined {
  const entry = entries.find((e) => e.types.includes('deb') && e.suites.includes(codename) && e.components.includes('main'));
  const uri = entry?.uris[0];
  return entry && uri ? { uri, ...(entry.signedBy ? { signedBy: entry.signedBy } : {}) } : undefined;
}

/** The release this machine runs and the archive it installs it from (its apt sources). */
export interface MachineRelease {
  /** os-release's ID: `debian` or `ubuntu`. */
  distribution: string;
  /** os-release's VERSION_CODENAME, e.g. `bookworm`. */
  codename: string;
  archive: DebianArchive;
  /** The components of that archive the tests' packages come from (Ubuntu's `universe` holds clangd). */
  components: string[];
}

/** The components each distribution keeps the packages the tests need in. */
const COMPONENTS: Record<string, string[]> = { debian: ['main'], ubuntu: ['main', 'universe'] };

/** The machine's release and archive, or an error saying why there is none. */
export function machineRelease(etc = '/etc'): MachineRelease {
  const release = existsSync(join(etc, 'os-release')) ? readFileSync(join(etc, 'os-release'), 'utf8') : '';
  const field = (name: string): string => (new RegExp(`^${name}="?([^"\\n]*)"?$`, 'm').exec(release)?.[1] ?? '').trim();
  const distribution = field('ID');
  const components = COMPONENTS[distribution];
  if (!components) throw new Error(`this machine is neither Debian nor Ubuntu (os-release ID "${distribution}"): its apt sources name no archive to fetch packages from`);
  const codename = field('VERSION_CODENAME');
  const entries: Entry[] = [];
  const list = join(etc, 'apt/sources.list');
  if (existsSync(list)) entries.push(...oneLineEntries(readFileSync(list, 'utf8')));
  const parts = join(etc, 'apt/sources.list.d');
  for (const name of existsSync(parts) ? readdirSync(parts).sort() : []) {
    if (name.endsWith('.list')) entries.push(...oneLineEntries(readFileSync(join(parts, name), 'utf8')));
    else if (name.endsWith('.sources')) entries.push(...deb822Entries(readFileSync(join(parts, name), 'utf8')));
  }
  const archive = archiveFor(entries, codename);
  if (!archive) throw new Error(`no apt source of this machine serves ${distribution} ${codename} main: add the ${distribution} archive to its apt sources`);
  return { distribution, codename, archive, components };
}

/** The machine's Debian archive (whose URI serves every Debian suite), or an error saying why there is none. */
export function machineArchive(etc = '/etc'): DebianArchive {
  const release = machineRelease(etc);
  if (release.distribution !== 'debian') throw new Error(`this machine is not Debian (os-release ID "${release.distribution}"): its apt sources name no Debian archive to fetch the editors from`);
  return release.archive;
}
