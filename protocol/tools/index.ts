/** The catalog: every tool, in the order tools/list shows them. Explicit list, no scanning. */
import type { ToolSpec } from '../tool.ts';
import { findAndReplace } from './find-and-replace.ts';
import { getStateBrief } from './get-state-brief.ts';
import { listEditors } from './list-editors.ts';
import { readBuffer } from './read-buffer.ts';
import { writeBuffer } from './write-buffer.ts';

export { findAndReplace, getStateBrief, listEditors, readBuffer, writeBuffer };

export const TOOLS: readonly ToolSpec[] = [listEditors, getStateBrief, readBuffer, findAndReplace, writeBuffer];

const BY_NAME = new Map(TOOLS.map((t) => [t.name, t]));

/** The catalog entry for `name`, or undefined for an unknown tool. */
export function toolByName(name: string): ToolSpec | undefined {
  return BY_NAME.get(name);
}
