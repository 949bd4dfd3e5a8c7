/** Port options of the CLI: `--port` of `serve --http`, and `--vim-port` of `agent` and `serve`. */
import type { EditorSourceOptions } from '../editors/source.ts';
import type { VimHolderRole } from '../editors/vim/holder.ts';

/** `text` as a TCP port (0 picks a free one); throws naming `flag` otherwise. */
export function parsePort(text: string, flag: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65_535) throw new Error(`${flag} must be a port number (0 picks a free one), not ${text}`);
  return port;
}

/**
 * The Vim listener option for `--vim-port`: Vims always connect on the user's Vim socket; with
 * the flag, on that port of 127.0.0.1 too (for a Vim whose vimrc sets g:vimrelay_port). `holder`:
 * what this process is, for the rule of who serves Vims (vim/holder.ts).
 */
export function vimListenerOption(vimPort: string | undefined, holder: { role: VimHolderRole; relay?: string }): EditorSourceOptions['vim'] {
  return vimPort === undefined ? { holder } : { port: parsePort(vimPort, '--vim-port'), holder };
}
