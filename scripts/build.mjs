#!/usr/bin/env node
// `npm run build` (also run by `npm install` in a clone, through `prepare`, and before `npm pack`):
// compiles the agent, the CLI and the protocol they share to plain JavaScript under dist/
// (tsconfig.build.json), and copies beside it the Lua the Neovim adapter installs into each
// editor. The installed package runs dist/ with Node alone: no TypeScript loader at run time.
// Plain JavaScript itself, so that it needs nothing but the TypeScript compiler to run.
// It builds only when what dist/ is made from changed since the last build (a digest of BUILD_INPUTS
// kept in .tsbuild/build-inputs): a rebuild empties dist/ first, under whatever runs the CLI from
// it meanwhile (another test run in the checkout), and `npm test` saves the compile.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inputsDigest } from './inputs-digest.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

/** What dist/ is made from, relative to the project root. */
const BUILD_INPUTS = ['agent', 'protocol', 'package.json', 'package-lock.json', 'tsconfig.base.json', 'tsconfig.build.json', 'scripts/build.mjs'];
const stamp = join(root, '.tsbuild', 'build-inputs');

const digest = inputsDigest(root, BUILD_INPUTS);
const built = existsSync(join(root, 'dist/agent/cli/main.js')) && existsSync(stamp) && readFileSync(stamp, 'utf8') === digest;
if (built) {
  // On stderr: `npm pack --json` runs this (prepare) and prints its JSON on stdout.
  process.stderr.write('dist/ is up to date\n');
  process.exit(0);
}
rmSync(stamp, { force: true });
rmSync(join(root, 'dist'), { recursive: true, force: true });
const compiled = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
if (compiled.status !== 0) process.exit(compiled.status ?? 1);
cpSync(join(root, 'agent/editors/nvim/lua'), join(root, 'dist/agent/editors/nvim/lua'), { recursive: true });
mkdirSync(dirname(stamp), { recursive: true });
writeFileSync(stamp, digest);
