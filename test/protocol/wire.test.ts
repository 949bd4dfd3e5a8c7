// The wire `call` message's optional `client_name` (PROTOCOL.md "Relay ↔ agent"): carried when the
// relay knows the name, absent from a relay that does not (still a valid call), and refused when
// empty or longer than MAX_CLIENT_NAME_CHARS (the whole message is then BAD_MESSAGE).
import { describe, expect, it } from 'vitest';
import { MAX_CLIENT_NAME_CHARS, parseHubMessage } from '../../protocol/index.ts';
import { clientNameOf } from '../../protocol/mcp-server.ts';

const call = { type: 'call', id: 'c1', tool: 'read_buffer', editor: 'nvim-1', args: {}, scopes: ['read'], client: 'tErIheOV8SX8__6h', deadline_ms: 30_000 };

describe('call.client_name', () => {
  it('is carried when given, and may be absent', () => {
    expect(parseHubMessage(JSON.stringify({ ...call, client_name: 'MCP CLI Proxy' }))).toMatchObject({ ok: true, message: { client_name: 'MCP CLI Proxy' } });
    const without = parseHubMessage(JSON.stringify(call));
    expect(without).toMatchObject({ ok: true });
    expect(without.ok && 'client_name' in without.message).toBe(false);
  });

  it('is refused empty or over its length', () => {
    expect(parseHubMessage(JSON.stringify({ ...call, client_name: '' })).ok).toBe(false);
    expect(parseHubMessage(JSON.stringify({ ...call, client_name: 'x'.repeat(MAX_CLIENT_NAME_CHARS + 1) })).ok).toBe(false);
  });
});

describe('clientNameOf: the name an MCP client gives itself', () => {
  it('is its title, else its name, trimmed and cut to the wire limit; none for none', () => {
    expect(clientNameOf({ name: 'claude-code', title: 'Claude Code' })).toBe('Claude Code');
    expect(clientNameOf({ name: ' cursor ', title: ' ' })).toBe('cursor');
    expect(clientNameOf({ name: '界'.repeat(MAX_CLIENT_NAME_CHARS + 5) })).toBe('界'.repeat(MAX_CLIENT_NAME_CHARS));
    expect(clientNameOf({ name: '' })).toBeUndefined();
    expect(clientNameOf(undefined)).toBeUndefined();
  });
});
