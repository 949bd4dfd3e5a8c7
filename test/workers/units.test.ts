// Pure units of the Worker's core: editor routing and scope checks, Origin policy, configuration,
// the capped body reader.
import { describe, expect, it } from 'vitest';
import { LIMITS, listEditors, lspCodeActions, lspRename, readBuffer, writeBuffer, type ToolOutcome } from '../../protocol/index.ts';
import { callDeadlineMs, extraAllowedOrigins, relayOrigin } from '../../worker/config.ts';
import { declaredTooLarge, readCapped } from '../../worker/http/body.ts';
import { originAllowed } from '../../protocol/http/origin.ts';
import { checkScope, publicEditorId, resolveEditor, type OnlineEditor } from '../../protocol/index.ts';

function online(device: string, localId: string): OnlineEditor {
  const id = publicEditorId(device, localId);
  return {
    deviceId: `id-${device}`,
    localId,
    startedAt: null,
    info: { id, device, kind: 'nvim', version: '0.7.2', name: localId, cwd: '/', current_file: null, pid: 1, waiting_for: null, ui: null, uptime_s: null },
  };
}

const code = (outcome: ToolOutcome): string => (outcome.ok ? 'ok' : outcome.error.code);

describe('resolveEditor', () => {
  const laptop = online('laptop', 'nvim-1');
  const desk = online('desk', 'nvim-2');
  const deskSame = online('desk', 'nvim-1');

  it('no editor online: NO_EDITOR, whether or not one was named', () => {
    for (const requested of [undefined, 'laptop/nvim-1']) {
      const r = resolveEditor([], requested);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(code(r.outcome)).toBe('NO_EDITOR');
    }
  });

  it('one editor and none named: that one', () => {
    expect(resolveEditor([laptop], undefined)).toEqual({ ok: true, editor: laptop });
  });

  it('several and none named: AMBIGUOUS_EDITOR listing every id', () => {
    const r = resolveEditor([laptop, desk], undefined);
    expect(r.ok).toBe(false);
    if (!r.ok && !r.outcome.ok) {
      expect(r.outcome.error.code).toBe('AMBIGUOUS_EDITOR');
      expect(r.outcome.error.editors).toEqual(['laptop/nvim-1', 'desk/nvim-2']);
      expect(r.outcome.error.hint).toMatch(/editor/);
    }
  });

  it('a public id or a unique local id picks the editor', () => {
    expect(resolveEditor([laptop, desk], 'desk/nvim-2')).toEqual({ ok: true, editor: desk });
    expect(resolveEditor([laptop, desk], 'nvim-2')).toEqual({ ok: true, editor: desk });
  });

  it('a local id on two devices is ambiguous; the full id is not', () => {
    const r = resolveEditor([laptop, deskSame], 'nvim-1');
    expect(r.ok).toBe(false);
    if (!r.ok && !r.outcome.ok) {
      expect(r.outcome.error.code).toBe('AMBIGUOUS_EDITOR');
      expect(r.outcome.error.editors).toEqual(['laptop/nvim-1', 'desk/nvim-1']);
    }
    expect(resolveEditor([laptop, deskSame], 'desk/nvim-1')).toEqual({ ok: true, editor: deskSame });
  });

  it('an unknown id: EDITOR_NOT_FOUND listing every id', () => {
    const r = resolveEditor([laptop, desk], 'laptop/nvim-9');
    expect(r.ok).toBe(false);
    if (!r.ok && !r.outcome.ok) {
      expect(r.outcome.error.code).toBe('EDITOR_NOT_FOUND');
      expect(r.outcome.error.editors).toEqual(['laptop/nvim-1', 'desk/nvim-2']);
    }
  });
});

describe('checkScope', () => {
  it('allows a tool whose permission class is in the scopes, denies otherwise', () => {
    expect(checkScope(readBuffer, ['read'], {})).toBeNull();
    expect(checkScope(listEditors, ['read', 'write'], {})).toBeNull();
    const denied = checkScope(writeBuffer, ['read'], {});
    expect(denied && code(denied)).toBe('PERMISSION_DENIED');
    expect(denied && !denied.ok && denied.error.required_scope).toBe('write');
  });

  it('takes the class a call needs from its arguments where the tool says so: lsp_rename previews read, applies write', () => {
    expect(checkScope(lspRename, ['read'], { line: 1, col: 1, new_name: 'x' })).toBeNull();
    expect(checkScope(lspRename, ['read'], { line: 1, col: 1, new_name: 'x', apply: false })).toBeNull();
    const denied = checkScope(lspRename, ['read'], { line: 1, col: 1, new_name: 'x', apply: true, expected_changedtick: 3 });
    expect(denied && !denied.ok && denied.error.required_scope).toBe('write');
    expect(checkScope(lspRename, ['read', 'write'], { apply: true })).toBeNull();
    // Unvalidated arguments ask no more than a call without them; validation refuses them later.
    expect(checkScope(lspRename, ['read'], { apply: 'yes' })).toBeNull();
    expect(checkScope(lspRename, ['read'], null)).toBeNull();
  });

  it('takes lsp_code_actions\' class from its arguments: a list or preview reads, an edit writes, a server command is exec', () => {
    const at = { line: 1, col: 1 };
    const command = 'x2945264d:Extract to function in module scope';
    expect(checkScope(lspCodeActions, ['read'], at)).toBeNull();
    expect(checkScope(lspCodeActions, ['read'], { ...at, id: command })).toBeNull();
    const write = checkScope(lspCodeActions, ['read'], { ...at, id: 'ef102935f:Organize Imports', apply: true, expected_changedtick: 3 });
    expect(write && !write.ok && write.error.required_scope).toBe('write');
    // A token that may write may not have the server run a command.
    const exec = checkScope(lspCodeActions, ['read', 'write'], { ...at, id: command, apply: true, expected_changedtick: 3 });
    expect(exec && !exec.ok && exec.error.required_scope).toBe('exec');
    expect(checkScope(lspCodeActions, ['read', 'exec'], { ...at, id: command, apply: true })).toBeNull();
  });
});

describe('originAllowed', () => {
  const allowed = (origin: string | null): boolean => originAllowed(origin, 'https://relay.test', 'https://public.example', ['https://app.example']);

  it('allows no Origin, the request origin, the public origin, configured ones and http loopback', () => {
    for (const o of [null, 'https://relay.test', 'https://public.example', 'https://app.example', 'http://localhost', 'http://localhost:6274', 'http://127.0.0.1:8787', 'http://[::1]:3000']) {
      expect(allowed(o)).toBe(true);
    }
  });

  it('refuses everything else', () => {
    for (const o of ['https://evil.example', 'null', 'https://localhost', 'http://localhost.evil.example', 'http://127.0.0.1.evil.example', 'http://relay.test', 'https://app.example:8443']) {
      expect(allowed(o)).toBe(false);
    }
  });
});

describe('config', () => {
  it('relayOrigin: PUBLIC_URL\'s origin when set, else the request\'s', () => {
    expect(relayOrigin({}, 'https://relay.test/mcp?x=1')).toBe('https://relay.test');
    expect(relayOrigin({ PUBLIC_URL: '' }, 'https://relay.test/mcp')).toBe('https://relay.test');
    expect(relayOrigin({ PUBLIC_URL: 'https://public.example/base/' }, 'https://relay.test/mcp')).toBe('https://public.example');
  });

  it('callDeadlineMs: a positive integer, else the default', () => {
    expect(callDeadlineMs({})).toBe(LIMITS.callDeadlineMs);
    expect(callDeadlineMs({ CALL_DEADLINE_MS: '250' })).toBe(250);
    for (const bad of ['0', '-5', '1.5', 'soon', '']) expect(callDeadlineMs({ CALL_DEADLINE_MS: bad })).toBe(LIMITS.callDeadlineMs);
  });

  it('extraAllowedOrigins: trimmed origins, non-URLs ignored', () => {
    expect(extraAllowedOrigins({ ALLOWED_ORIGINS: ' https://a.example/path , nonsense,http://b.example:81 ' })).toEqual(['https://a.example', 'http://b.example:81']);
    expect(extraAllowedOrigins({})).toEqual([]);
  });
});

describe('readCapped', () => {
  const post = (body: BodyInit, headers: Record<string, string> = {}): Request => new Request('https://x.test/', { method: 'POST', body, headers });

  it('reads a body at the cap, refuses one byte more', async () => {
    expect(await readCapped(post('a'.repeat(10)), 10)).toEqual({ ok: true, text: 'aaaaaaaaaa' });
    expect(await readCapped(post('a'.repeat(11)), 10)).toEqual({ ok: false, tooLarge: true });
  });

  it('counts bytes, not characters', async () => {
    expect(await readCapped(post('é'.repeat(5)), 10)).toEqual({ ok: true, text: 'ééééé' });
    expect(await readCapped(post('é'.repeat(6)), 10)).toEqual({ ok: false, tooLarge: true });
  });

  it('refuses a declared Content-Length over the cap without reading the body', async () => {
    const unreadable = new ReadableStream<Uint8Array>({
      pull() {
        throw new Error('the body must not be read');
      },
    });
    const req = new Request('https://x.test/', { method: 'POST', body: unreadable, headers: { 'Content-Length': '999' } });
    expect(declaredTooLarge(req, 10)).toBe(true);
    expect(await readCapped(req, 10)).toEqual({ ok: false, tooLarge: true });
    expect(declaredTooLarge(post('tiny'), 10)).toBe(false);
  });
});
