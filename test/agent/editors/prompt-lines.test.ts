// promptLines: what a permission prompt shows, in order — every path and the whole preview, never
// cut; the keys for an editor the user named and for one they did not; only deny for a preview
// too long to show whole — and that no text a client or model chose (control characters, line
// breaks) can break a prompt line or fake one of its own lines, nor hide anything in blanks or
// in characters a terminal shows as nothing.
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
    expect(keys).toEqual(['[Ctrl-G] allow once   [Ctrl-T] allow always in the editor named "work"', DENY_KEYS, SCROLL_KEYS]);
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
      '[Ctrl-G] allow once   [Ctrl-T] allow in this editor until it disconnects (name it with :VimRelayName or g:vimrelay_name to allow always)',
    );
  });

  it('lists every path, and every line of a long preview whole', () => {
    const paths = Array.from({ length: 60 }, (_, i) => `/p/${i}`);
    const long = `echo 'harmless' ${'x'.repeat(5_000)}| call writefile(['PAYLOAD'], '/tmp/x')`;
    const preview = previewOf([`:${long}`, ...Array.from({ length: 500 }, (_, i) => `:echo ${i}`)]);
    const lines = promptLines(request({ tool: 'run_command', klass: 'exec', preview: preview.text, previewChars: preview.chars, paths }));
    expect(lines.filter((l) => l.startsWith('path: '))).toEqual(paths.map((p) => `path: ${p}`));
    expect(lines).toContain(`:${long}`);
    expect(lines).toContain(':echo 499');
  });

  it('shows a long run of blanks as one mark that counts it, so that no stretch of blank rows can hide a command', () => {
    const padded = `echo "formatting done"${' '.repeat(4_000)}| call writefile(['x'], '/tmp/y')${' '.repeat(4_000)}| " end of command`;
    const lines = promptLines(request({ tool: 'run_command', klass: 'exec', preview: `:${padded}`, previewChars: padded.length + 1 }));
    expect(lines).toContain(`:echo "formatting done"⟨4,000 spaces⟩| call writefile(['x'], '/tmp/y')⟨4,000 spaces⟩| " end of command`);
    expect(promptLines(request({ preview: `abc${'\t'.repeat(20)}b\t\tc${' '.repeat(16)}d${' \t'.repeat(2)}e` }))).toContain(`abc⟨20 tabs⟩b\t\tc${' '.repeat(16)}d⟨4 blanks (spaces and tabs)⟩e`);
    // Indentation, which every diff of code has, stays as it is up to 48 columns (a tab counts 8).
    const code = promptLines(request({ preview: `-${' '.repeat(47)}return x\n+${' '.repeat(49)}return y\n${'\t'.repeat(6)}z\n${'\t'.repeat(7)}w` }));
    expect(code).toContain(`-${' '.repeat(47)}return x`);
    expect(code).toContain('+⟨49 spaces⟩return y');
    expect(code).toContain(`${'\t'.repeat(6)}z`);
    expect(code).toContain('⟨7 tabs⟩w');
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

  it('shows separators, format, bidi, zero-width and other invisible characters as ⟨U+XXXX⟩', () => {
    const tricky = 'a\u2028b\u2029c\u200bd\u202ee\u2066f\u00adg\ufeffh\u0085i\u00a0j\u3000k\ufe0fl\u3164m\u{e0041}n\u{f0000}o';
    const lines = promptLines(request({ preview: tricky, client: 'x\u202ey' }));
    expect(lines).toContain('a⟨U+2028⟩b⟨U+2029⟩c⟨U+200B⟩d⟨U+202E⟩e⟨U+2066⟩f⟨U+00AD⟩g⟨U+FEFF⟩h⟨U+0085⟩i⟨U+00A0⟩j⟨U+3000⟩k⟨U+FE0F⟩l⟨U+3164⟩m⟨U+E0041⟩n⟨U+F0000⟩o');
    expect(lines[0]).toBe('vimrelay: x⟨U+202E⟩y asks to run save_buffer (save)');
    // What people write stays as it is: accents, scripts, emoji, CJK.
    expect(promptLines(request({ preview: 'héllo wörld ñ 日本語 😀 Ελληνικά' }))).toContain('héllo wörld ñ 日本語 😀 Ελληνικά');
  });
});
