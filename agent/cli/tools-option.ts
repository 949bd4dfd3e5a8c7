/**
 * `serve --tools <set>[+<set>…]`: the toolsets the local server lists and serves
 * (protocol/toolsets.ts), as the relay serves them at `/mcp/<set>`. Throws one line naming the
 * first unknown name, the nearest toolset and every one; an empty name is refused rather than read
 * as "every tool".
 */
import { parseToolset, TOOLSET_NAMES, TOOLSET_SEPARATOR, type Toolset } from '../../protocol/toolsets.ts';
import { closest } from './suggest.ts';

export function parseToolsOption(text: string): Toolset {
  const parsed = parseToolset(text);
  if (parsed.ok) return parsed.toolset;
  const valid = `${TOOLSET_NAMES.join(', ')}, joined with "${TOOLSET_SEPARATOR}" (read${TOOLSET_SEPARATOR}lsp)`;
  const names = text.split(TOOLSET_SEPARATOR);
  if (names.includes('')) throw new Error(`--tools takes toolset names: ${valid}`);
  const unknown = names.find((name) => !(TOOLSET_NAMES as readonly string[]).includes(name)) ?? text;
  const meant = closest(unknown, TOOLSET_NAMES);
  throw new Error(`unknown toolset "${unknown}" in --tools; ${meant ? `did you mean \`${meant}\`? The toolsets are` : 'the toolsets are'} ${valid}`);
}
