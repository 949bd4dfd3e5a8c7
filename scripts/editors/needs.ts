/**
 * What the tests need from the machine beyond Node, and how each runs once unpacked from the
 * machine's own release (machine.ts fetches it): the program the tests look for on PATH, the
 * packages that provide it, and the command line and environment its wrapper gives it. Every
 * program runs on the machine's libc (same release); the libraries it needs that the machine lacks
 * come from the unpacked root through LD_LIBRARY_PATH, which machine.ts adds to every wrapper.
 *
 * Left to the machine: Node itself (it runs this), and `python3` (pylsp runs on it: the machine's
 * interpreter reads the unpacked Python packages, where an unpacked Python would need a home of its
 * own; Debian's and Ubuntu's installers put it on every machine).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** How one unpacked program is run: its command (argv before the caller's) and environment. */
export interface Launch {
  command: string[];
  env: Record<string, string>;
}

export interface Need {
  /** The packages of the machine's release to fetch. */
  packages: readonly string[];
  /** Fetch the packages alone, not what they depend on (an addon whose dependency is the editor). */
  alone?: true;
  /**
   * Dependencies that hold the program's own files (its runtime, the versioned binary a
   * metapackage points to): fetched with it even when the machine has them installed.
   */
  together?: RegExp;
  /** The programs it provides, each with how to run it from `root`; its wrapper in bin/ has its name. */
  programs: Record<string, (root: string) => Launch>;
  /** Why a program is not usable even when fetched (a missing interpreter), or undefined. */
  unusable?: (root: string) => string | undefined;
}

/** A Vim runtime directory under `root` (`usr/share/vim/vim90`), as a path. */
function vimRuntimeUnder(root: string): string {
  const dir = existsSync(join(root, 'usr/share/vim')) ? readdirSync(join(root, 'usr/share/vim')).find((d) => /^vim\d+$/.test(d)) : undefined;
  if (!dir) throw new Error(`no Vim runtime in ${root}/usr/share/vim`);
  return join(root, 'usr/share/vim', dir);
}

/** `program` under `root`: in usr/bin, or in /bin where a package of a release before merged /usr put it. */
function inBin(root: string, program: string): string {
  return [join(root, 'usr/bin', program), join(root, 'bin', program)].find((path) => existsSync(path)) ?? join(root, 'usr/bin', program);
}

/** The interpreter a script's `#!` line names (`/usr/bin/python3`). */
function interpreter(script: string): string {
  return /^#!\s*(\S+)/.exec(readFileSync(script, 'utf8'))?.[1] ?? '';
}

/** What the tests need, by the program they look for on PATH. */
export const NEEDS = {
  // The machine's release's own editors, when it has none: Vim with Debian's ALE in its $VIM/vimfiles.
  nvim: {
    packages: ['neovim'],
    together: /^neovim-runtime$/,
    programs: {
      nvim: (root) => ({
        command: [join(root, 'usr/bin/nvim'), ...(existsSync(join(root, 'usr/lib/nvim')) ? ['--cmd', `set rtp+=${join(root, 'usr/lib/nvim')}`] : [])],
        env: { VIMRUNTIME: join(root, 'usr/share/nvim/runtime') },
      }),
    },
  },
  vim: {
    packages: ['vim', 'vim-ale'],
    together: /^vim-(runtime|common)$/,
    programs: { vim: (root) => ({ command: [join(root, 'usr/bin/vim.basic')], env: { VIM: join(root, 'usr/share/vim'), VIMRUNTIME: vimRuntimeUnder(root) } }) },
  },
  // ALE for a Vim that lacks it: the wrapper is made per Vim (machine.ts `aleWrapper`), none here.
  'vim-ale': { packages: ['vim-ale'], alone: true, programs: {} },
  tmux: { packages: ['tmux'], programs: { tmux: (root) => ({ command: [join(root, 'usr/bin/tmux')], env: {} }) } },
  clangd: { packages: ['clangd'], together: /^clangd-\d+$/, programs: { clangd: (root) => ({ command: [join(root, 'usr/bin/clangd')], env: {} }) } },
  pylsp: {
    packages: ['python3-pylsp'],
    programs: {
      pylsp: (root) => ({
        command: [interpreter(join(root, 'usr/bin/pylsp')), join(root, 'usr/bin/pylsp')],
        env: { PYTHONPATH: join(root, 'usr/lib/python3/dist-packages') },
      }),
    },
    unusable(root) {
      const python = interpreter(join(root, 'usr/bin/pylsp'));
      return existsSync(python) ? undefined : `pylsp runs on ${python}, which this machine lacks: install python3`;
    },
  },
  // Debian's /usr/bin/chromium is a script reading /etc/chromium.d; the browser itself is this.
  chromium: { packages: ['chromium'], together: /^chromium-common$/, programs: { chromium: (root) => ({ command: [join(root, 'usr/lib/chromium/chromium')], env: {} }) } },
  // The package test packs the repository with `npm pack git+file://`: git and its helpers.
  git: {
    packages: ['git'],
    programs: {
      git: (root) => ({ command: [join(root, 'usr/bin/git')], env: { GIT_EXEC_PATH: join(root, 'usr/lib/git-core'), GIT_TEMPLATE_DIR: join(root, 'usr/share/git-core/templates') } }),
    },
  },
  // The tests look at processes.
  procps: {
    packages: ['procps'],
    programs: { ps: (root) => ({ command: [inBin(root, 'ps')], env: {} }), pgrep: (root) => ({ command: [inBin(root, 'pgrep')], env: {} }) },
  },
  'systemd-analyze': { packages: ['systemd'], together: /^libsystemd-shared$/, programs: { 'systemd-analyze': (root) => ({ command: [join(root, 'usr/bin/systemd-analyze')], env: {} }) } },
} as const satisfies Record<string, Need>;

export type NeedName = keyof typeof NEEDS;
