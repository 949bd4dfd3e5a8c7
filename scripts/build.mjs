#!/usr/bin/env node
// `npm run build` (also run by `npm install` in a clone, through `prepare`, and before `npm pack`):
// compiles the agent, the CLI and the protocol they share to plain JavaScript under dist/
// (tsconfig.build.json), and copies beside it the Lua the Neovim adapter installs into each
// editor. The installed package runs dist/ with Node alone: no TypeScript loader at run time.
// Plain JavaScript itself, so that it needs nothing but the TypeScript compiler to run.
import { spawnSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

rmSync(join(root, 'dist'), { recursive: true, force: true });
const built = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status ?? 1);
cpSync(join(root, 'agent/editors/nvim/lua'), join(root, 'dist/agent/editors/nvim/lua'), { recursive: true });
