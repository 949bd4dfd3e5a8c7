/**
 * How the agent names the client that makes a call, in its prompts, its reviews and `vimrelay log`
 * (README "Permissions"): as the relay's consent page and dashboard name it ("MCP CLI Proxy",
 * "laptop (personal access token)", the wire call's `client_name`), or, in local mode, as the MCP
 * client names itself (its `clientInfo`); by its id (`client`) when no name came (a relay from
 * before names). Once two clients of one name have called (in this agent's lifetime), each is
 * shown with its id beside the name, so that the user can tell them apart. Shown through `visible`
 * (editors/prompts.ts) wherever it is shown: a name is the client's own words.
 */
import type { Caller } from '../policy/types.ts';

/** `name`, with `id` beside it when `ambiguous` (another client has that name too); `id` alone when there is no name. */
export function clientLabel(id: string, name: string | undefined, ambiguous: boolean): string {
  if (name === undefined || name === '' || name === id) return id;
  return ambiguous ? `${name} (${id})` : name;
}

/** Names remembered, the oldest forgotten first, and ids remembered per name. */
const MAX_NAMES = 256;
const MAX_IDS_PER_NAME = 16;

/** The clients one agent process has seen, by name: whether a name is shared (see the module header). */
export class ClientNames {
  readonly #ids = new Map<string, Set<string>>();

  /** The caller of a call from client `id` named `name` (when one came), noting that `id` goes by it. */
  caller(id: string, name?: string): Caller {
    if (name === undefined || name === '') return { id, label: id };
    let ids = this.#ids.get(name);
    if (!ids) {
      if (this.#ids.size >= MAX_NAMES) this.#ids.delete(this.#ids.keys().next().value as string);
      this.#ids.set(name, (ids = new Set()));
    }
    if (!ids.has(id) && ids.size < MAX_IDS_PER_NAME) ids.add(id);
    return { id, name, label: clientLabel(id, name, ids.size > 1) };
  }
}

/** The label of each of `entries` (audit lines, in order), a name shared among them shown with each one's id. */
export function labelsOf(entries: readonly { client: string; client_name?: string | undefined }[]): string[] {
  const ids = new Map<string, Set<string>>();
  for (const e of entries) if (e.client_name) ids.set(e.client_name, (ids.get(e.client_name) ?? new Set()).add(e.client));
  return entries.map((e) => clientLabel(e.client, e.client_name, (ids.get(e.client_name ?? '')?.size ?? 0) > 1));
}
