/**
 * The tools a Neovim answers, as an explicit list (no directory scanning), and their Lua sources,
 * which the adapter compiles into each editor when it attaches.
 */
import { luaSource } from '../lua.ts';
import { findAndReplaceTool } from './find-and-replace.ts';
import { getStateBriefTool } from './get-state-brief.ts';
import { readBufferTool } from './read-buffer.ts';
import type { NvimTool } from './tool.ts';
import { writeBufferTool } from './write-buffer.ts';

export type { NvimTool } from './tool.ts';

/** Every tool a Neovim answers. */
export const NVIM_TOOLS: readonly NvimTool[] = [getStateBriefTool, readBufferTool, findAndReplaceTool, writeBufferTool];

const BY_NAME = new Map(NVIM_TOOLS.map((t) => [t.spec.name, t]));

/** The Neovim implementation of the catalog tool `name`, if there is one. */
export function nvimTool(name: string): NvimTool | undefined {
  return BY_NAME.get(name);
}

/** Tool name -> Lua source, read at startup; sent to each editor on attach. */
export const TOOL_SOURCES: Readonly<Record<string, string>> = Object.fromEntries(
  NVIM_TOOLS.map((t) => [t.spec.name, luaSource(t.lua)]),
);
