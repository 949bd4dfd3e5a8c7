/**
 * connect_editor: make an agent attach a Neovim its discovery did not find (or has not yet), by
 * address, by a process running inside it, or by its place in the agent's candidate list. Acts
 * on the agent, not on an editor: routed to one device (`routing: 'agent'`).
 */
import { z } from 'zod';
import { defineTool } from '../tool.ts';
import { EditorInfo } from './common.ts';

/** Caps of connect_editor. */
export const CONNECT_EDITOR_LIMITS = {
  /** Candidates listed at most. */
  maxCandidates: 50,
  /** Ancestors of terminal_pid looked at (and listed in an error) at most. */
  maxAncestors: 64,
  /** Longest probe error kept per candidate (characters). */
  errorChars: 300,
} as const;

const L = CONNECT_EDITOR_LIMITS;

export const EditorCandidate = z.object({
  index: z.number().int().positive().describe('Pass this as `index` to attach this candidate.'),
  address: z.string().describe('Socket path or host:port.'),
  pid: z.number().int().positive().nullable().describe('The Neovim\'s pid, when known (attached, or in the socket name).'),
  state: z.enum(['attached', 'unreachable', 'pending']).describe('attached: an editor is attached through it; unreachable: the last attempt failed (`error`); pending: not tried yet.'),
  editor: z.string().nullable().describe('The id of the editor attached through it.'),
  error: z.string().nullable().describe('Why the last attempt failed.'),
});

export const connectEditor = defineTool({
  name: 'connect_editor',
  title: 'Connect a Neovim',
  description:
    'Make a vimrelay agent attach a Neovim that list_editors does not show. Pass one of: `socket_path`, the Neovim\'s server address ' +
    '(in that Neovim, :echo v:servername shows it: a unix socket the user owns, or host:port only when the user listed that address in the agent\'s tcp_editors setting); `terminal_pid`, the pid of any process running inside a Neovim terminal ' +
    '(the nearest Neovim among its parent processes is attached); or `index`, from this tool\'s candidate list. ' +
    'With none of them it only lists the candidates: the Neovim server addresses the agent knows (found on the machine, or named before), each attached, unreachable (with the error) or pending. ' +
    `At most ${L.maxCandidates} candidates are listed, sorted by address (\`candidates_truncated\`, \`candidates_total\`); indexes can shift when Neovims start or exit, so prefer socket_path. ` +
    'An address the agent may not attach (another user\'s, unconfigured TCP, nothing there) is refused with EDITOR_NOT_FOUND, whatever the reason. ' +
    'Returns the editor (its `id` works as `editor` in other tools; list_editors shows it as <device>/<id>). ' +
    '`device` names the machine (the `device` of list_editors) when several agents are connected. Use list_editors to see editors already online.',
  permission: 'read',
  routing: 'agent',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: z
    .object({
      device: z.string().min(1).max(255).optional().describe('The machine (device name, as list_editors shows it). Optional when one agent is connected.'),
      socket_path: z.string().min(1).max(4096).optional().describe('The Neovim\'s server address: a unix socket path, or a host:port the user configured.'),
      terminal_pid: z.number().int().positive().optional().describe('Pid of a process running inside a Neovim terminal buffer (e.g. your own process).'),
      index: z.number().int().positive().optional().describe('`index` of a candidate listed by connect_editor.'),
    })
    .strict()
    .refine((a) => [a.socket_path, a.terminal_pid, a.index].filter((v) => v !== undefined).length <= 1, {
      message: 'Pass at most one of socket_path, terminal_pid and index.',
    }),
  output: z.object({
    action: z.enum(['listed', 'attached', 'already_attached']).describe('listed: no editor was asked for; attached: newly attached; already_attached: it was attached before.'),
    editor: EditorInfo.omit({ device: true }).nullable().describe('The editor asked for; null when only listing.'),
    candidates: z.array(EditorCandidate),
    candidates_total: z.number().int().nonnegative(),
    candidates_truncated: z.boolean(),
  }),
});
