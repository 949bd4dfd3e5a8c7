/**
 * Hub <-> agent wire messages, version 1. One JSON object per WebSocket text message; the only
 * non-JSON frames are the heartbeat strings, answered by the Hub's auto-response without waking it.
 * PROTOCOL.md describes each message in prose.
 */
import { z } from 'zod';
import { DecideResult, DecisionAnswer, DECISION_LIMITS, Surface, WireDecision } from './decisions.ts';
import { WireRounds } from './elicitation.ts';
import { ToolOutcomeSchema } from './errors.ts';
import { EditorKind, EditorWaiting } from './tools/common.ts';

export const WIRE_VERSION = 1;

/** Heartbeat frames (plain text). The agent sends PING; the Hub auto-responds PONG. */
export const HEARTBEAT_PING = 'ping';
export const HEARTBEAT_PONG = 'pong';

/**
 * The upgrade header with which an agent proves its takeover key (PROTOCOL.md "One agent per
 * device"): 32 bytes of HMAC-SHA256, base64url without padding. A newer connection of a device
 * replaces a live one only when it proves the live one's key, or the device's first.
 */
export const TAKEOVER_HEADER = 'Vimrelay-Takeover';
export const TAKEOVER_PROOF = /^[A-Za-z0-9_-]{43}$/;

/**
 * How a newer connection was let in while another of its device was live: `same_key` (it proved
 * the live one's key: a restart of the same agent), `first_key` (it proved the device's first key,
 * which the live one did not), `keyless` (the live one had proved no key: an agent from before
 * takeover keys).
 */
export const TakeoverHow = z.enum(['same_key', 'first_key', 'keyless']);
export type TakeoverHow = z.infer<typeof TakeoverHow>;

/** An editor as the agent reports it; the Hub adds the device and makes the id account-wide. */
export const WireEditor = z.object({
  id: z.string().min(1).max(100),
  kind: EditorKind,
  version: z.string().max(100),
  name: z.string().max(200),
  cwd: z.string().max(4096),
  current_file: z.string().max(4096).nullable(),
  pid: z.number().int().nullable(),
  /**
   * What the editor waits for its user to answer (EDITOR_BLOCKED), null or absent while it can be
   * asked. Optional: an agent older than the field never sends it.
   */
  waiting_for: EditorWaiting.nullable().optional(),
  /**
   * Whether a UI is attached (Neovim: `nvim_list_uis()`; Vim: a terminal or GUI, not `-es`), null
   * when unknown. Optional, like `started_at`: an agent older than the fields sends neither.
   */
  ui: z.boolean().nullable().optional(),
  /** When the editor's process started (Unix seconds), null when the system does not say. */
  started_at: z.number().int().nonnegative().nullable().optional(),
});
export type WireEditor = z.infer<typeof WireEditor>;

const editors = z.array(WireEditor).max(200);

/** agent -> hub, first message after the upgrade. */
export const Hello = z.object({
  type: z.literal('hello'),
  v: z.number().int(),
  agent: z.object({ version: z.string().max(50), hostname: z.string().max(255), platform: z.string().max(50) }),
  editors,
});

/** agent -> hub: the full current list of editors (replaces the previous one). */
export const EditorsChanged = z.object({ type: z.literal('editors'), editors });

/** agent -> hub: the outcome of a call. */
export const Result = z.object({ type: z.literal('result'), id: z.string(), outcome: ToolOutcomeSchema });

/**
 * agent -> hub: every pending decision the user lets the relay's Pending page answer (the full
 * list, replacing the last one; PROTOCOL.md "Pending decisions"), and those of them settled
 * lately, with where (`settled`), so that the page can say who decided one it still shows. The Hub
 * keeps them while the connection lives.
 */
export const DecisionsChanged = z.object({
  type: z.literal('decisions'),
  decisions: z.array(WireDecision).max(DECISION_LIMITS.maxPublished),
  settled: z.array(z.strictObject({ id: z.string().min(16).max(64), by: Surface })).max(DECISION_LIMITS.maxSettled).default([]),
});

/** agent -> hub: the agent's word on the answer the Hub carried under `id` (a `decide`). */
export const Decided = z.object({ type: z.literal('decided'), id: z.string().max(64), result: DecideResult });

/** hub -> agent, answer to hello; `took_over` when this connection replaced a live one of the device. */
export const Welcome = z.object({
  type: z.literal('welcome'),
  v: z.number().int(),
  device: z.object({ id: z.string(), name: z.string() }),
  took_over: z.object({ address: z.string().max(64), since: z.string().max(40), how: TakeoverHow }).optional(),
});

/**
 * hub -> agent: a newer connection as this device was refused, since it proved neither this
 * connection's takeover key nor the device's first: someone else may hold the device's credential.
 */
export const TakeoverRefused = z.object({ type: z.literal('takeover_refused'), at: z.string().max(40), address: z.string().max(64) });

/**
 * Longest client name a call carries (characters): the relay's longest is a personal access
 * token's name and its suffix, or a registered `client_name` (100).
 */
export const MAX_CLIENT_NAME_CHARS = 200;

/**
 * hub -> agent: run one tool on one editor. `editor` is the agent's own id for it. `client` is the
 * caller's client id (an OAuth client id, `pat:<name>`); `client_name` what the owner's pages call
 * it (the name the owner consented to, `<name> (personal access token)`), for prompts and the audit
 * log. Optional: a relay from before it sends none, and an agent from before it ignores it.
 */
export const Call = z.object({
  type: z.literal('call'),
  id: z.string(),
  tool: z.string(),
  editor: z.string(),
  args: z.record(z.string(), z.unknown()),
  /** Scopes of the client's token: an upper bound the agent may enforce too. */
  scopes: z.array(z.string()),
  client: z.string(),
  client_name: z.string().min(1).max(MAX_CLIENT_NAME_CHARS).optional(),
  /** The client declared MCP Apps: its user may be asked in the decision card (protocol/app/card.ts). Absent: no. */
  ui: z.literal(true).optional(),
  deadline_ms: z.number().int().positive(),
  /**
   * The client can be asked by elicitation rounds (2026-07-28; protocol/elicitation.ts): the
   * agent may answer INPUT_REQUIRED for a decision the call opens; on a retry, the state and the
   * responses the client sent. Optional: a relay from before it sends none.
   */
  rounds: WireRounds.optional(),
});

/**
 * hub -> agent: the owner answered pending decision `decision` on the relay's Pending page; the
 * agent settles it (or refuses) and says so with a `decided` of the same `id`.
 */
export const Decide = z.object({ type: z.literal('decide'), id: z.string().max(64), decision: z.string().max(64), answer: DecisionAnswer });

/** hub -> agent: the client gave up on a call (cancelled or past its deadline). */
export const Cancel = z.object({ type: z.literal('cancel'), id: z.string() });

/**
 * either way: a protocol fault. VERSION_MISMATCH and REVOKED end the link (the sender closes after
 * them); BAD_MESSAGE refuses one message and the link stays up.
 */
export const WireFault = z.object({
  type: z.literal('error'),
  code: z.enum(['VERSION_MISMATCH', 'BAD_MESSAGE', 'REVOKED']),
  message: z.string(),
});

export const AgentMessage = z.discriminatedUnion('type', [Hello, EditorsChanged, Result, DecisionsChanged, Decided, WireFault]);
export type AgentMessage = z.infer<typeof AgentMessage>;
export const HubMessage = z.discriminatedUnion('type', [Welcome, Call, Cancel, Decide, TakeoverRefused, WireFault]);
export type HubMessage = z.infer<typeof HubMessage>;

export type Parsed<T> = { ok: true; message: T } | { ok: false; error: string };

function parseWith<T>(schema: z.ZodType<T>, text: string): Parsed<T> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, error: 'not JSON' };
  }
  const parsed = schema.safeParse(json);
  return parsed.success ? { ok: true, message: parsed.data } : { ok: false, error: z.prettifyError(parsed.error) };
}

export const parseAgentMessage = (text: string): Parsed<AgentMessage> => parseWith(AgentMessage, text);
export const parseHubMessage = (text: string): Parsed<HubMessage> => parseWith(HubMessage, text);
