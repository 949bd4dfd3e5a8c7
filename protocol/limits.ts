/**
 * Limits at every boundary, with their defaults. Both sides import these; PROTOCOL.md documents them.
 */
export const LIMITS = {
  /** Largest `/mcp` request body the relay accepts (bytes). Larger gets HTTP 413. */
  maxMcpBodyBytes: 1024 * 1024,
  /**
   * Largest line (one JSON-RPC message) `serve --stdio` reads (bytes); a longer one is answered
   * with an error and dropped. Below the MCP SDK's own 10 MiB read buffer, past which the SDK
   * would close the session instead; above the HTTP cap, as the SDK allowed stdio clients before.
   */
  maxStdioLineBytes: 8 * 1024 * 1024,
  /** Largest WebSocket message between Hub and agent (bytes); the agent sets `maxPayload` to it. */
  maxWireMessageBytes: 4 * 1024 * 1024,
  /**
   * Deadline of one tool call (ms): the agent answers by then (the wire `call`'s `deadline_ms`),
   * and nothing starts inside an editor after it. Below hosted assistants' ~60 s cap.
   */
  callDeadlineMs: 30_000,
  /**
   * How long after a call's deadline the Hub still waits for the agent's own answer before it
   * answers TIMEOUT itself (ms): room for the answer's trip back, so that the agent's answer (a
   * prompt nobody answered, say) is the one the client gets.
   */
  hubGraceMs: 3_000,
  /**
   * How long before the call's deadline an unanswered permission prompt closes and denies the
   * call (ms), so that the denial, not a TIMEOUT, reaches the client.
   */
  promptMarginMs: 2_000,
  /** No single tool result carries more than this much text (bytes of UTF-8). */
  maxResultBytes: 100 * 1024,
  /** read_buffer: lines returned by default, and the most an argument may ask for. */
  readDefaultLines: 2_000,
  readMaxLines: 10_000,
  /** Buffers listed by get_state_brief before it truncates. */
  stateMaxBuffers: 200,
  /** Lines of context around the cursor that get_state_brief returns, each side. */
  stateContextLines: 3,
  /** Matches a MULTIPLE_MATCHES error lists. */
  maxMatchesReported: 5,
  /** Heartbeat period of the agent (ms); the Hub answers by auto-response without waking. */
  heartbeatMs: 3_000,
  /**
   * The Hub counts an agent gone (frozen, asleep, cut off) when it has heard no heartbeat for
   * this long (ms): its calls answer EDITOR_OFFLINE and its socket is closed.
   */
  heartbeatTimeoutMs: 10_000,
  /** Agent reconnect backoff, full jitter between 0 and min(cap, base * 2^attempt) (ms). */
  reconnectBaseMs: 1_000,
  reconnectCapMs: 30_000,
  /**
   * While it waits to reconnect, the agent asks the relay's `/health` this often (ms, with full
   * jitter): when the relay answers again after failing, it reconnects at once.
   */
  healthProbeMs: 2_000,
  /** Recent call ids the agent remembers so that a call is never applied twice. */
  rememberedCallIds: 1_000,
} as const;
