/**
 * apt with a configuration of its own, for one Debian suite: its sources list, package lists and
 * caches live in a private directory, so that fetching packages of another release changes
 * nothing on the machine and needs no root. The machine's apt settings (a proxy, say) still
 * apply; its sources, preferences (pinning) and installed-package state do not. `update()` reads
 * the suite's package lists, `closure()` resolves what packages need to run (Depends and
 * Pre-Depends, recursively), `download()` fetches .deb files; `unpack()` extracts them with
 * `dpkg -x` (no maintainer scripts run, nothing is registered).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DebianArchive } from './sources.ts';

export interface PrivateApt {
  update(): void;
  /** The candidate version of `name` in the suite, or undefined when the suite has none. */
  candidate(name: string): string | undefined;
  /** `names` and every package they depend on to run, real packages only, sorted. */
  closure(names: readonly string[]): string[];
  /** Downloads `names` into `dir`; returns the .deb files there. */
  download(names: readonly string[], dir: string): string[];
}

export function privateApt(dir: string, archive: DebianArchive, suite: string): PrivateApt {
  const lists = join(dir, 'lists');
  const cache = join(dir, 'cache');
  mkdirSync(join(lists, 'partial'), { recursive: true });
  mkdirSync(join(cache, 'archives/partial'), { recursive: true });
  const sourceList = join(dir, 'sources.list');
  writeFileSync(sourceList, `deb ${archive.signedBy ? `[signed-by=${archive.signedBy}] ` : ''}${archive.uri} ${suite} main\n`);
  const options = [
    `Dir::Etc::SourceList=${sourceList}`,
    'Dir::Etc::SourceParts=/dev/null',
    'Dir::Etc::Preferences=/dev/null',
    'Dir::Etc::PreferencesParts=/dev/null',
    `Dir::State::Lists=${lists}`,
    'Dir::State::status=/dev/null',
    `Dir::Cache=${cache}`,
    'Acquire::Languages=none',
    // As root, apt downloads as the user _apt, who may not write into this directory.
    'APT::Sandbox::User=root',
  ].flatMap((o) => ['-o', o]);
  const run = (command: string, args: readonly string[], cwd?: string): string => {
    try {
      return execFileSync(command, [...options, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...(cwd ? { cwd } : {}) });
    } catch (error) {
      const stderr = (error as { stderr?: string }).stderr ?? '';
      throw new Error(`${command} ${args.join(' ')} (${suite}) failed: ${stderr.trim() || String(error)}`, { cause: error });
    }
  };
  return {
    update: () => void run('apt-get', ['-qq', 'update']),
    candidate(name) {
      const version = /^\s*Candidate:\s*(\S+)/m.exec(run('apt-cache', ['policy', name]))?.[1];
      return version && version !== '(none)' ? version : undefined;
    },
    closure(names) {
      const out = run('apt-cache', ['depends', '--recurse', '--no-recommends', '--no-suggests', '--no-conflicts', '--no-breaks', '--no-replaces', '--no-enhances', ...names]);
      // Top-level lines name the packages; `<name>` is a virtual package, provided by one listed too.
      return [...new Set(out.split('\n').filter((l) => /^[a-z0-9]/.test(l)).map((l) => l.trim()))].sort();
    },
    download(names, into) {
      mkdirSync(into, { recursive: true });
      run('apt-get', ['-qq', 'download', ...names], into);
      return readdirSync(into).filter((f) => f.endsWith('.deb')).map((f) => join(into, f));
    },
  };
}

/** Extracts each .deb into `root`, as `dpkg -x` does: files only, no scripts run, nothing registered. */
export function unpack(debs: readonly string[], root: string): void {
  mkdirSync(root, { recursive: true });
  for (const deb of debs) execFileSync('dpkg', ['-x', deb, root], { stdio: ['ignore', 'ignore', 'pipe'] });
}
