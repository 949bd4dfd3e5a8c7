/**
 * connect_editor, run by the agent against its editor source: attach by address, by a process
 * running inside a Neovim terminal, or by candidate index; with no argument, list the candidates.
 * Every result carries the candidate list as it is after the call.
 *
 * An address that cannot be attached gets one answer, whatever the reason (the source refuses
 * another user's socket or an unconfigured TCP address before connecting; a missing file, a closed
 * port, a listener that is not Neovim fail later): EDITOR_NOT_FOUND saying only that it is not a
 * Neovim this agent may attach. A client with the read scope learns nothing about the machine's
 * files, ports or other accounts from it.
 */
import { CONNECT_EDITOR_LIMITS, fail, uptime, type connectEditor, type ToolInput, type ToolOutcome } from '../../protocol/index.ts';
import type { Editor, EditorSource } from '../editors/editor.ts';
import { ancestry, serverAddressesOf, type ProcessReader, readProcess } from './process-tree.ts';

const L = CONNECT_EDITOR_LIMITS;

/** Environment addresses tried at most when looking for the Neovim of a process. */
const MAX_ENVIRONMENT_ADDRESSES = 4;

/** What connect_editor needs of the agent's editor source. */
export type ConnectSource = Pick<EditorSource, 'list' | 'candidates' | 'attach'>;

/** Runs connect_editor with validated arguments. `read` reads processes (default: this machine's). */
export async function runConnectEditor(
  source: ConnectSource,
  args: ToolInput<typeof connectEditor>,
  signal: AbortSignal,
  read: ProcessReader = readProcess,
): Promise<ToolOutcome> {
  if (args.socket_path !== undefined) return attachAddress(source, args.socket_path, signal);
  if (args.terminal_pid !== undefined) return attachByProcess(source, args.terminal_pid, signal, read);
  if (args.index !== undefined) {
    const candidates = source.candidates();
    const chosen = candidates[args.index - 1];
    if (!chosen) {
      return fail('INVALID_ARGUMENT', `There is no candidate ${args.index}: this agent knows ${candidates.length}.`, {
        candidates_total: candidates.length,
        hint: 'Call connect_editor without arguments to list the candidates, then pass one\'s index, or its address as socket_path.',
      });
    }
    return attachAddress(source, chosen.address, signal);
  }
  return result(source, 'listed', null);
}

async function attachAddress(source: ConnectSource, address: string, signal: AbortSignal): Promise<ToolOutcome> {
  try {
    const { editor, already } = await source.attach(address, signal);
    return result(source, already ? 'already_attached' : 'attached', editor);
  } catch {
    return fail('EDITOR_NOT_FOUND', notAttachable(address), {
      address,
      hint:
        'Pass the address of one of the user\'s own running Neovims: a unix socket the user owns (in that Neovim, :echo v:servername shows it), ' +
        'or a TCP address the user listed in tcp_editors of $XDG_CONFIG_HOME/vimrelay/config.json. ' +
        'Call connect_editor without arguments to list the addresses this agent knows.',
    });
  }
}

/** The one message for an address that cannot be attached, whatever the reason. */
function notAttachable(address: string): string {
  return `${address} is not a Neovim this agent may attach.`;
}

/**
 * The nearest Neovim among `pid` and its parents. Neovim names its server in its terminal jobs'
 * environment: those addresses are attached first, so that the nearest Neovim is found even where
 * discovery cannot see its socket. Then the chain is walked nearest first, matching attached
 * editors and candidates by pid.
 */
async function attachByProcess(source: ConnectSource, pid: number, signal: AbortSignal, read: ProcessReader): Promise<ToolOutcome> {
  const chain = await ancestry(pid, L.maxAncestors, read);
  if (chain.length === 0) {
    return fail('INVALID_ARGUMENT', `No process has pid ${pid} on this machine.`, {
      hint: 'Pass the pid of a process running inside a Neovim terminal on the machine of this agent (see `device`), or use socket_path.',
    });
  }
  const fresh = new Set<Editor>();
  const tried: { address: string; error: string }[] = [];
  const addresses = new Set<string>();
  for (const entry of chain) for (const address of await serverAddressesOf(entry.pid)) addresses.add(address);
  for (const address of [...addresses].slice(0, MAX_ENVIRONMENT_ADDRESSES)) {
    try {
      const { editor, already } = await source.attach(address, signal);
      if (!already) fresh.add(editor);
    } catch {
      tried.push({ address, error: notAttachable(address) });
    }
  }

  for (const entry of chain) {
    const editor = source.list().find((e) => e.info().pid === entry.pid);
    if (editor) return result(source, fresh.has(editor) ? 'attached' : 'already_attached', editor);
    const candidate = source.candidates().find((c) => c.pid === entry.pid && c.state !== 'attached');
    if (candidate) return attachAddress(source, candidate.address, signal);
  }
  return fail('EDITOR_NOT_FOUND', `No Neovim this agent can reach has process ${pid} running inside it.`, {
    ancestors: chain.map(({ pid: p, name }) => ({ pid: p, name })),
    tried,
    hint: 'Pass socket_path instead: in the Neovim whose terminal runs the process, :echo v:servername shows its address.',
  });
}

/** An editor as connect_editor shows it: list_editors' fields but `device`. */
function shown(editor: Editor) {
  const { started_at: startedAt, ...info } = editor.info();
  return { ...info, waiting_for: info.waiting_for ?? null, ui: info.ui ?? null, uptime_s: uptime(startedAt ?? null, Date.now()) };
}

function result(source: ConnectSource, action: 'listed' | 'attached' | 'already_attached', editor: Editor | null): ToolOutcome {
  const all = source.candidates();
  const candidates = all.slice(0, L.maxCandidates).map((c, i) => ({ index: i + 1, ...c, error: c.error === null ? null : c.error.slice(0, L.errorChars) }));
  return {
    ok: true,
    data: {
      action,
      editor: editor === null ? null : shown(editor),
      candidates,
      candidates_total: all.length,
      candidates_truncated: all.length > candidates.length,
    },
  };
}
