#!/usr/bin/env node
// The vimrelay CLI: the agent bundled under dist/ (`npm run build`, which `npm install` runs in a
// clone and `npm pack` before packing).
import { main } from '../dist/vimrelay.mjs';

process.exitCode = await main(process.argv.slice(2));
