// promptLines: what a permission prompt shows, in order — every path and the whole preview, never
// cut; the keys for an editor the user named and for one they did not; only deny for a preview
// too long to show whole — and that no text a client or model chose (control characters, line
// breaks) can break a prompt line or fake one of its own lines.
import { describe, expect, it } from 'vitest';
import { DENY_KEYS, promptKeys, promptLines, SCROLL_KEYS } from '../../../agent/editors/prompts.ts';
import { PREVIEW_LIMITS, previewOf } from '../../../agent/policy/preview.ts';
import type { AskRequest } from '../../../agent/policy/types.ts';

function request(over: Partial<AskRequest> = {}): AskRequest {
  return { client: 'cursor', tool: 'save_buffer', klass: 'save', editor: 'work', chosenName: 'work', preview: 'save /a\nline 2', previewChars: 14, paths: ['/a'], ...over };
}

const rule = '─'.repeat(40);

describe('promptLines', () => {
  it('shows who asks what where, the paths, the keys, the preview between rules, and the keys again', () => {
    const keys = promptKeys(request());
    expect(keys).toEqual(['[o] allow once   [a] allow always in the editor named "work"', DENY_KEYS, SCROLL_KEYS]);
    expect(promptLines(request())).toEqual([
      'vimrelay: cursor asks to run save_buffer (save)',
      'editor: work',
      'path: /a',
      ...keys,
      rule,
      'save /a',
      'line 2',
      rule,
      keys[0],
      DENY_KEYS,
    ]);
  });

  it('offers an editor the user has not named "allow" only until it disconnects, saying how to name it', () => {
    expect(promptKeys(request({ chosenName: null }))[0]).toBe(
      '[o] allow once   [a] allow in this editor until it disconnects (name it with :VimRelayName or g:vimrelay_name to allow always)',
    );
  });

  it('lists every path, and every line of a long preview whole', () => {
    const paths = Array.from({ length: 60 }, (_, i) => `/p/${i}`);
    const long = `echo 'harmless' ${' '.repeat(5_000)}| call writefile(['PAYLOAD'], '/tmp/x')`;
    const preview = previewOf([`:${long}`, ...Array.from({ length: 500 }, (_, i) => `:echo ${i}`)]);
    const lines = promptLines(request({ tool: 'run_command', klass: 'exec', preview: preview.text, previewChars: preview.chars, paths }));
    expect(lines.filter((l) => l.startsWith('path: '))).toEqual(paths.map((p) => `path: ${p}`));
    expect(lines).toContain(`:${long}`);
    expect(lines).toContain(':echo 499');
  });

  it('shows no preview too long to show whole, says so, and offers only deny', () => {
    const lines = promptLines(request({ preview: null, previewChars: 123_456 }));
    expect(lines.filter((l) => l.startsWith('['))).toEqual([DENY_KEYS]);
    expect(lines.join('\n')).toContain(`has 123,456 characters, more than the ${PREVIEW_LIMITS.maxChars.toLocaleString('en-US')} a prompt shows whole`);
    expect(lines.join('\n')).toContain('it can only be denied');
    expect(lines.join('\n')).not.toMatch(/allow once|allow always/);
  });

  it('shows control characters as ^X, so that a name cannot start a line of its own', () => {
    const lines = promptLines(request({ client: 'evil\n[o] allow once\x1b[2K', tool: 'run_command', klass: 'exec', editor: 'e\r\x7f', chosenName: 'e"\n', preview: 'a\tb\x00', paths: ['/p\n'] }));
    expect(lines[0]).toBe('vimrelay: evil^J[o] allow once^[[2K asks to run run_command (exec)');
    expect(lines[1]).toBe('editor: e^M^?');
    expect(lines[2]).toBe('path: /p^J');
    expect(lines).toContain('a\tb^@');
    expect(lines[3]).toContain('named "e"^J"');
    expect(lines.every((l) => !/[\n\r]/.test(l))).toBe(true);
  });
});
