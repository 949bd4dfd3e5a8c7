/**
 * Hub <-> agent wire messages, version 1. One JSON object per WebSocket text message; the only
 * non-JSON frames are the heartbeat strings, answered by the Hub's auto-response without waking it.
 * PROTOCOL.md describes each message in prose.
 */
import { z } from 'zod';
import { ToolOutcomeSchema } from './errors.ts';
import { EditorKind, EditorWaiting } from './tools/common.ts';

export const WIRE_VERSION = 1;

/** Heartbeat frames (plain text). The agent sends PING; the Hub auto-responds PONG. */
export const HEARTBEAT_PING = 'ping';
export const HEARTBEAT_PONG = 'pong';

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

/** hub -> agent, answer to hello. */
export const Welcome = z.object({
  type: z.literal('welcome'),
  v: z.number().int(),
  device: z.object({ id: z.string(), name: z.string() }),
});

/** hub -> agent: run one tool on one editor. `editor` is the agent's own id for it. */
export const Call = z.object({
  type: z.literal('call'),
  id: z.string(),
  tool: z.string(),
  editor: z.string(),
  args: z.record(z.string(), z.unknown()),
  /** Scopes of the client's token: an upper bound the agent may enforce too. */
  scopes: z.array(z.string()),
  client: z.string(),
  deadline_ms: z.number().int().positive(),
});

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

export const AgentMessage = z.discriminatedUnion('type', [Hello, EditorsChanged, Result, WireFault]);
export type AgentMessage = z.infer<typeof AgentMessage>;
export const HubMessage = z.discriminatedUnion('type', [Welcome, Call, Cancel, WireFault]);
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
