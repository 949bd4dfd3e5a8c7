/**
 * A NUL byte in a buffer line, across the Vim channel. Vim holds a NUL inside a line as a NL in its
 * strings (:h NL-used-for-Nul): getline() and getbufline() give "\n" where the buffer holds a NUL,
 * json_encode() sends it so, and setline(), setbufline() and appendbufline() write a NUL for a
 * "\n" in a line's string. Vim cannot receive U+0000 at all: Vim 9.0's json_decode() drops each
 * "\u0000" of a string ('"a\u0000b"' decodes to 'ab'). The agent's contract is Neovim's, whose
 * msgpack carries the byte as it is: a line's text holds U+0000 for a NUL. So the Vim adapter maps
 * the line texts a tool's record names (EditorTool.lineTexts), and only those: a "\n" inside a
 * line's text can only be a NUL (a line holds no line break), while anywhere else (a message,
 * command output) it is a line break. A NUL is one byte in the file and a NL one byte in Vim's
 * string, so Vim's byte counts of a line stay right; Vim counts a NL of a line's text as the 6
 * bytes of JSON it becomes here (autoload/vimrelay/util.vim vimrelay#util#json_size).
 */

/** `params` with each U+0000 of the line texts at `paths` a "\n", as Vim writes a NUL. */
export function nulsToVim(params: Record<string, unknown>, paths: readonly string[]): Record<string, unknown> {
  // mapAt keeps an object an object with the same keys.
  return mapPaths(params, paths, (s) => s.replaceAll('\0', '\n')) as Record<string, unknown>;
}

/** Vim's raw answer with each "\n" of the line texts at `paths` the U+0000 it stands for. */
export function nulsFromVim(raw: unknown, paths: readonly string[]): unknown {
  return mapPaths(raw, paths, (s) => s.replaceAll('\n', '\0'));
}

function mapPaths(value: unknown, paths: readonly string[], f: (s: string) => string): unknown {
  return paths.reduce((v, path) => mapAt(v, path.split('.'), f), value);
}

/** `value` with `f` applied to the strings at `keys` (`*`: each element of an array), copied on the way; anything else as it is. */
function mapAt(value: unknown, keys: readonly string[], f: (s: string) => string): unknown {
  const [key, ...rest] = keys;
  if (key === undefined) return typeof value === 'string' ? f(value) : value;
  if (Array.isArray(value)) return key === '*' ? value.map((item: unknown) => mapAt(item, rest, f)) : value;
  if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return value;
  const record = value as Record<string, unknown>;
  return { ...record, [key]: mapAt(record[key], rest, f) };
}
