/**
 * Globs of the permission policy: on editor names and on absolute file paths. Pure.
 *
 * - `*` matches any run of characters except `/`; `**` matches any run, `/` included, and `**`
 *   followed by `/` may also match nothing (so `/src/` `**` `/x` matches `/src/x`).
 * - `?` matches one character except `/`; `[abc]`, `[a-z]`, `[!x]` / `[^x]` one character of (or
 *   not of) a class; `\x` the character `x` itself.
 * - A path glob without `/` matches the path's basename (as in .gitignore: `.env*` matches
 *   `/x/y/.env.local`); a glob with `/` matches the whole absolute path, `~/` expanded to $HOME.
 * - An editor glob (`matchesGlob` with `{ basename: false }`) always matches the whole name.
 * - Matching is case-sensitive, unless `ignoreCase` (never_read's globs: `*.pem` matches `SERVER.PEM`).
 */

/** Options of `globToRegExp` / `matchesGlob`. */
export interface GlobOptions {
  /** The home directory that a leading `~/` stands for. Default: none (`~` is literal). */
  home?: string;
  /** Whether a glob without `/` matches the value's last `/` segment (paths). Default true. */
  basename?: boolean;
  /** Whether letters match in either case. Default false. */
  ignoreCase?: boolean;
}

/** A regular expression matching exactly the values `glob` matches (anchored at both ends). */
export function globToRegExp(glob: string, home?: string, ignoreCase = false): RegExp {
  let g = glob;
  if (home !== undefined && g.startsWith('~/')) g = home.replace(/\/+$/, '') + g.slice(1);
  let re = '';
  for (let i = 0; i < g.length; i++) {
    const c = g.charAt(i);
    if (c === '*') {
      if (g.charAt(i + 1) === '*') {
        i++;
        // `**/` also matches no directory at all: `a/**/b` matches `a/b`.
        if (g.charAt(i + 1) === '/') {
          i++;
          re += '(?:.*/)?';
        } else re += '.*';
      } else re += '[^/]*';
    } else if (c === '?') re += '[^/]';
    else if (c === '\\' && i + 1 < g.length) re += escapeRegExp(g.charAt(++i));
    else if (c === '[') {
      const end = g.indexOf(']', i + 2);
      if (end === -1) re += '\\[';
      else {
        let body = g.slice(i + 1, end);
        const negated = body.startsWith('!') || body.startsWith('^');
        if (negated) body = body.slice(1);
        re += `[${negated ? '^' : ''}${body.replace(/[\\\]^]/g, '\\$&')}]`;
        i = end;
      }
    } else re += escapeRegExp(c);
  }
  return new RegExp(`^${re}$`, ignoreCase ? 'i' : '');
}

/** Whether `value` (an absolute path or an editor name) matches `glob`, as the header says. */
export function matchesGlob(glob: string, value: string, opts: GlobOptions = {}): boolean {
  const basename = opts.basename ?? true;
  const subject = basename && !glob.includes('/') ? value.slice(value.lastIndexOf('/') + 1) : value;
  return globToRegExp(glob, opts.home, opts.ignoreCase).test(subject);
}

/** `text` with every glob metacharacter escaped, so that as a glob it matches only itself. */
export function escapeGlob(text: string): string {
  return text.replace(/[\\*?[\]]/g, '\\$&');
}

function escapeRegExp(c: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(c) ? `\\${c}` : c;
}
