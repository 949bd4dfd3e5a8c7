#!/usr/bin/env node
// `npm run build` (also run by `npm install` in a clone, through `prepare`, and before `npm pack`):
// bundles the agent, the CLI and the protocol they share into plain JavaScript under dist/ with
// esbuild, and copies beside it the Lua the Neovim adapter installs into each editor (dist/lua/,
// which nvim/lua.ts finds next to the module that reads it). The installed package runs dist/
// with Node alone: no TypeScript loader at run time. Each command's own code is a chunk loaded when
// that command runs (agent/cli/commands.ts imports it lazily), so `vimrelay --version` loads little.
//
// Why a bundle rather than one JavaScript file per source file: Node's ESM loader resolves, reads
// and links each module at every start. With the project's 200 modules bundled, `vimrelay serve
// --stdio` answered its first tools/list in 750 ms instead of 890 (p50 of 12, interleaved), on 900
// ms of CPU instead of 1,060. With the npm packages bundled too (zod, the MCP SDK and ws were
// another 300 modules), in 647 ms instead of 812, on 730 ms of CPU instead of 940 (p50 of 12): every
// editor's agent and every MCP client's `serve --stdio` starts that much sooner. So the package
// depends on nothing at run time but ws's optional native helpers, which stay outside
// (OPTIONAL_NATIVE); the licenses of what it bundles are in dist/THIRD-PARTY-LICENSES.md.
//
// It builds only when what dist/ is made from changed since the last build (a digest of BUILD_INPUTS
// kept in .tsbuild/build-inputs): a rebuild empties dist/ first, under whatever runs the CLI from
// it meanwhile (another test run in the checkout), and `npm test` saves the work.
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import { inputsDigest } from './inputs-digest.mjs';
import { thirdPartyLicenses } from './third-party-licenses.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** What dist/ is made from, relative to the project root. */
const BUILD_INPUTS = ['agent', 'protocol', 'package.json', 'package-lock.json', 'scripts/build.mjs', 'scripts/third-party-licenses.mjs'];
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
/** ws loads these if they are installed (bufferutil is an optional dependency), and runs without. */
const OPTIONAL_NATIVE = ['bufferutil', 'utf-8-validate'];
const { metafile } = buildSync({
  absWorkingDir: root,
  entryPoints: { vimrelay: 'agent/cli/main.ts' },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  // The oldest Node `engines` allows.
  target: 'node20.19',
  external: OPTIONAL_NATIVE,
  // ws is CommonJS and requires Node's modules; in an ES module, `require` is made from its URL.
  banner: { js: "import { createRequire as __vimrelayRequire } from 'node:module'; const require = __vimrelayRequire(import.meta.url);" },
  metafile: true,
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  // Every chunk beside the entry, so that `new URL('./lua/', import.meta.url)` is dist/lua/ in each.
  chunkNames: '[name]-[hash]',
  logLevel: 'warning',
});
cpSync(join(root, 'agent/editors/nvim/lua'), join(root, 'dist/lua'), { recursive: true });
writeFileSync(join(root, 'dist/THIRD-PARTY-LICENSES.md'), thirdPartyLicenses(root, Object.keys(metafile.inputs)));
mkdirSync(dirname(stamp), { recursive: true });
writeFileSync(stamp, digest);
