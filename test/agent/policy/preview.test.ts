// What a prompt shows of a call: each tool's own preview (its record in agent/editors/tools/), for
// every tool that can be asked about (exec, terminal, write, save, open, read), made into the
// prompt's text by previewOf: whole, never cut, however long its lines or many; or, past the
// documented cap, not at all.
import { describe, expect, it } from 'vitest';
import { editorTool } from '../../../agent/editors/tools/index.ts';
import { PREVIEW_LIMITS, previewOf as previewText } from '../../../agent/policy/preview.ts';

/** The prompt text of a call of `tool` with `args`; fails the test when it is not shown whole. */
function previewOf(tool: string, args: Record<string, unknown>): string {
  const record = editorTool(tool);
  if (!record) throw new Error(`no editor tool ${tool}`);
  const { text } = previewText(record.preview(args));
  if (text === null) throw new Error(`the preview of ${tool} is not shown`);
  return text;
}

describe('previewOf', () => {
  it('exec: the commands, one per line (a multi-line chunk over several), and send_keys\' keys', () => {
    expect(previewOf('run_command', { commands: ['w', '%s/a/b/g'] })).toBe(':w\n:%s/a/b/g');
    expect(previewOf('run_command', { commands: 'echo 1' })).toBe(':echo 1');
    expect(previewOf('run_command', { commands: ['if 1\n  echo 2\nendif'] })).toBe(':if 1\n  echo 2\nendif');
    expect(previewOf('send_keys', { keys: 'ggdG' })).toBe('keys: ggdG');
  });

  it('terminal: the text and its target, and whether Enter follows', () => {
    expect(previewOf('send_to_terminal', { text: 'rm -rf build\n', submit: true })).toBe('to the current (or only) terminal, then Enter:\n  rm -rf build');
    expect(previewOf('send_to_terminal', { text: 'y', terminal: 'bash' })).toBe('to terminal bash:\n  y');
    expect(previewOf('send_to_terminal', { text: 'y', terminal: 7 })).toBe('to terminal 7:\n  y');
  });

  it('write: old and new text as - and + lines, the diff, the new line count, :s with its range, undo steps, one-line descriptions', () => {
    expect(previewOf('find_and_replace', { buffer: '/src/a.ts', old_text: 'let x = 1;\nlet y;', new_text: 'const x = 1;' })).toBe(
      'in /src/a.ts:\n- let x = 1;\n- let y;\n+ const x = 1;',
    );
    expect(previewOf('find_and_replace', { old_text: 'gone', new_text: '' })).toBe('in the current buffer:\n- gone\n+ ');
    const diff = '--- a/x\n+++ b/x\n@@ -1,1 +1,1 @@\n-old\n+new\n';
    expect(previewOf('apply_diff', { buffer: 3, diff, expected_changedtick: 4 })).toBe(`in buffer 3:\n${diff.trimEnd()}`);
    expect(previewOf('write_buffer', { buffer: 'new.txt', text: 'a\nb\n' })).toBe('replace all of new.txt with 2 lines:\n  a\n  b');
    expect(previewOf('write_buffer', { buffer: 'empty.txt', text: '' })).toBe('replace all of empty.txt with 0 lines:\n  ');
    expect(previewOf('substitute', { pattern: 'foo\\d', replacement: 'bar', flags: 'g', start_line: 3, end_line: 9 })).toBe('in the current buffer:\n:3,9s/foo\\d/bar/g');
    expect(previewOf('substitute', { buffer: 2, pattern: 'a', replacement: '' })).toBe('in buffer 2:\n:1,$s/a//');
    expect(previewOf('undo', { steps: 3 })).toBe('undo 3 steps in the current buffer');
    expect(previewOf('redo', { buffer: 'a.ts' })).toBe('redo 1 step in a.ts');
    expect(previewOf('set_cursor', { line: 4, col: 2, buffer: 'a.ts' })).toBe('move the cursor of the current window to line 4, column 2 of a.ts');
    expect(previewOf('highlight_range', { start: { line: 1, col: 1 }, end: { line: 2, col: 5 }, color: 'info' })).toBe('highlight 1:1-2:5 of the current buffer');
    expect(previewOf('add_virtual_text', { line: 2, text: 'note' })).toBe('a note on line 2 of the current buffer:\n  note');
    expect(previewOf('clear_decorations', { all_buffers: true })).toBe('clear every vimrelay decoration in every buffer');
  });

  it('save and open: the buffer or path', () => {
    expect(previewOf('save_buffer', { buffer: '/src/a.ts' })).toBe('save /src/a.ts');
    expect(previewOf('save_buffer', {})).toBe('save the current buffer');
    expect(previewOf('open_file', { path: '/etc/hosts', show: true })).toBe('open /etc/hosts and show it');
  });

  it('read: what would be read, in words', () => {
    expect(previewOf('read_buffer', { buffer: 2 })).toBe('read buffer 2');
    expect(previewOf('grep_buffers', { pattern: 'TODO' })).toBe('search every loaded buffer for the text:\n  TODO');
    expect(previewOf('get_diagnostics', {})).toBe('read the diagnostics of every buffer');
  });

  it('never cuts a line, nor drops lines, however long: the payload at the end of a long command is there', () => {
    const command = `echo 'harmless' ${' '.repeat(5_000)}| call writefile(['PAYLOAD'], '/tmp/x')`;
    expect(previewOf('run_command', { commands: [command] })).toBe(`:${command}`);
    const commands = Array.from({ length: 50 }, (_, i) => `echo ${i + 1}`);
    expect(previewOf('run_command', { commands }).split('\n')).toEqual(commands.map((c) => `:${c}`));
    expect(previewOf('send_keys', { keys: '日'.repeat(4_000) })).toBe(`keys: ${'日'.repeat(4_000)}`);
  });

  it('counts characters (code points) against the cap, and shows nothing past it', () => {
    const record = editorTool('send_to_terminal');
    if (!record) throw new Error('no send_to_terminal');
    // The largest text send_to_terminal takes fits.
    const largest = previewText(record.preview({ text: 'x'.repeat(64 * 1024) }));
    expect(largest.text).not.toBeNull();
    const fits = previewText(['😀'.repeat(PREVIEW_LIMITS.maxChars)]);
    expect(fits).toEqual({ text: '😀'.repeat(PREVIEW_LIMITS.maxChars), chars: PREVIEW_LIMITS.maxChars });
    expect(previewText(['😀'.repeat(PREVIEW_LIMITS.maxChars), ''])).toEqual({ text: null, chars: PREVIEW_LIMITS.maxChars + 1 });
  });
});
