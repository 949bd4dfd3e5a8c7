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
  index: z.number().int().positive().describe('pass as `index`'),
  address: z.string().describe('socket path or host:port'),
  pid: z.number().int().positive().nullable().describe('when known'),
  state: z.enum(['attached', 'unreachable', 'pending']).describe('unreachable: the last attempt failed (error); pending: not tried yet'),
  editor: z.string().nullable().describe('id of the editor attached through it'),
  error: z.string().nullable().describe('why the last attempt failed'),
});

export const connectEditor = defineTool({
  name: 'connect_editor',
  title: 'Connect a Neovim',
  description:
    'Make a machine\'s vimrelay agent attach a Neovim that list_editors does not show, by socket_path, terminal_pid or index; ' +
    `with none of them, list the candidates it knows, at most ${L.maxCandidates}. ` +
    'TCP needs the agent\'s tcp_editors; an address it may not attach (another user\'s, unconfigured, nothing there) is EDITOR_NOT_FOUND. ' +
    'Returns the editor.',
  permission: 'read',
  routing: 'agent',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: z
    .object({
      device: z.string().min(1).max(255).optional().describe('The machine (a `device` of list_editors). Optional when one agent is connected.'),
      socket_path: z.string().min(1).max(4096).optional().describe('The Neovim\'s server address, a socket path or host:port (:echo v:servername in it).'),
      terminal_pid: z.number().int().positive().optional().describe('Pid of a process in a Neovim terminal (e.g. yours): the nearest Neovim among its parents is attached.'),
      index: z.number().int().positive().optional().describe('A candidate\'s index. Indexes shift as Neovims start and exit: prefer socket_path.'),
    })
    .strict()
    .refine((a) => [a.socket_path, a.terminal_pid, a.index].filter((v) => v !== undefined).length <= 1, {
      message: 'Pass at most one of socket_path, terminal_pid and index.',
    }),
  output: z.object({
    action: z.enum(['listed', 'attached', 'already_attached']).describe('what the call did'),
    editor: EditorInfo.omit({ device: true }).nullable().describe('Null when only listing.'),
    candidates: z.array(EditorCandidate).describe('Neovims the agent knows'),
    candidates_total: z.number().int().nonnegative().describe('how many, listed or not'),
    candidates_truncated: z.boolean().describe('more than listed'),
  }),
});
