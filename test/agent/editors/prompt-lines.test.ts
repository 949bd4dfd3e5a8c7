// promptLines: what a permission prompt shows, in order, and that no text a client or model chose
// (control characters, line breaks) can break a prompt line or fake one of its own lines.
import { describe, expect, it } from 'vitest';
import { PROMPT_KEYS, promptLines } from '../../../agent/editors/prompts.ts';

describe('promptLines', () => {
  it('shows who asks what where, the paths, the keys, then the preview between rules', () => {
    const lines = promptLines({ client: 'cursor', tool: 'save_buffer', klass: 'save', editor: 'work', preview: 'save /a\nline 2', paths: ['/a'] });
    const rule = '─'.repeat(40);
    expect(lines).toEqual(['vimrelay: cursor asks to run save_buffer (save)', 'editor: work', 'path: /a', ...PROMPT_KEYS, rule, 'save /a', 'line 2', rule]);
  });

  it('lists at most three paths and counts the rest', () => {
    const lines = promptLines({ client: 'c', tool: 'grep_buffers', klass: 'read', editor: 'e', preview: '', paths: ['/1', '/2', '/3', '/4', '/5'] });
    expect(lines.filter((l) => l.startsWith('path: '))).toEqual(['path: /1', 'path: /2', 'path: /3']);
    expect(lines).toContain('… and 2 more paths');
  });

  it('shows control characters as ^X, so that a name cannot start a line of its own', () => {
    const lines = promptLines({ client: 'evil\n[o] allow once\x1b[2K', tool: 'run_command', klass: 'exec', editor: 'e\r\x7f', preview: 'a\tb\x00', paths: ['/p\n'] });
    expect(lines[0]).toBe('vimrelay: evil^J[o] allow once^[[2K asks to run run_command (exec)');
    expect(lines[1]).toBe('editor: e^M^?');
    expect(lines[2]).toBe('path: /p^J');
    expect(lines).toContain('a\tb^@');
    expect(lines.every((l) => !/[\n\r]/.test(l))).toBe(true);
  });
});
