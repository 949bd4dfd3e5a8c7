#!/usr/bin/env node
// `npm run build` (also run by `npm install` in a clone, through `prepare`, and before `npm pack`):
// bundles the agent, the CLI and the protocol they share into plain JavaScript under dist/ with
// esbuild, and copies beside it the Lua the Neovim adapter installs into each editor (dist/lua/,
// which nvim/lua.ts finds next to the module that reads it). The installed package runs dist/
// with Node alone: no TypeScript loader at run time. Its runtime dependencies stay in node_modules
// (`packages: 'external'`), and each command's own code is a chunk loaded when that command runs
// (agent/cli/commands.ts imports it lazily), so `vimrelay --version` loads little.
//
// Why a bundle rather than one JavaScript file per source file: Node's ESM loader resolves, reads
// and links each of about 200 modules at every start. Bundled, `vimrelay serve --stdio` answers its
// first tools/list in 750 ms instead of 890 (p50 of 12, interleaved), on 900 ms of CPU instead of
// 1,060, and every editor's agent and every MCP client's `serve --stdio` starts that much sooner.
//
// It builds only when what dist/ is made from changed since the last build (a digest of BUILD_INPUTS
// kept in .tsbuild/build-inputs): a rebuild empties dist/ first, under whatever runs the CLI from
// it meanwhile (another test run in the checkout), and `npm test` saves the work.
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import { inputsDigest } from './inputs-digest.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** What dist/ is made from, relative to the project root. */
const BUILD_INPUTS = ['agent', 'protocol', 'package.json', 'package-lock.json', 'scripts/build.mjs'];
const stamp = join(root, '.tsbuild', 'build-inputs');
/** The module bin/vimrelay.js imports. */
const ENTRY = join(root, 'dist/vimrelay.mjs');

const digest = inputsDigest(root, BUILD_INPUTS);
const built = existsSync(ENTRY) && existsSync(stamp) && readFileSync(stamp, 'utf8') === digest;
if (built) {
  // On stderr: `npm pack --json` runs this (prepare) and prints its JSON on stdout.
  process.stderr.write('dist/ is up to date\n');
  process.exit(0);
}
rmSync(stamp, { force: true });
rmSync(join(root, 'dist'), { recursive: true, force: true });
buildSync({
  absWorkingDir: root,
  entryPoints: { vimrelay: 'agent/cli/main.ts' },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  // The oldest Node `engines` allows.
  target: 'node20.19',
  packages: 'external',
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  // Every chunk beside the entry, so that `new URL('./lua/', import.meta.url)` is dist/lua/ in each.
  chunkNames: '[name]-[hash]',
  logLevel: 'warning',
});
cpSync(join(root, 'agent/editors/nvim/lua'), join(root, 'dist/lua'), { recursive: true });
mkdirSync(dirname(stamp), { recursive: true });
writeFileSync(stamp, digest);
