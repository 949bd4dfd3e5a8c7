// The local relay's log (scripts/relay-log.ts) against the real file system: what any local
// account can make the relay print is written escaped, cut and rotated, so that it neither acts
// on the terminal that shows the log nor fills the disk.
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { escapeControls, RelayLog, RELAY_LOG_LIMITS } from '../../scripts/relay-log.ts';
import { tempDir } from '../helpers/temp.ts';

function logFile(): string {
  return join(tempDir('vimrelay-relay-log-'), 'relay.log');
}

describe('escapeControls', () => {
  it('writes C0 (but tab), DEL, C1 and the bidirectional controls as escapes, and leaves other text alone', () => {
    expect(escapeControls('a\x1b[2Jb\rc\x07d\x7fe\u009bf\tg')).toBe('a\\x1b[2Jb\\x0dc\\x07d\\x7fe\\x9bf\tg');
    expect(escapeControls('x\u202ey\u2066z\u200fé漢')).toBe('x\\u202ey\\u2066z\\u200fé漢');
  });
});

describe('RelayLog', () => {
  it('is created 0600 before anything is written', () => {
    const file = logFile();
    new RelayLog(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toBe('');
  });

  it('writes whole lines, escaped: a terminal escape in a line is shown, never obeyed', () => {
    const file = logFile();
    const out = new RelayLog(file).stream();
    out.write(Buffer.from('one \x1b]0;owned\x07 line\ntwo \x1b[2J'));
    expect(readFileSync(file, 'utf8')).toBe('one \\x1b]0;owned\\x07 line\n');
    out.write('still two\r\n');
    expect(readFileSync(file, 'utf8')).toBe('one \\x1b]0;owned\\x07 line\ntwo \\x1b[2Jstill two\\x0d\n');
  });

  it('a UTF-8 character split between two chunks stays whole', () => {
    const file = logFile();
    const out = new RelayLog(file).stream();
    const bytes = Buffer.from('é漢\n');
    out.write(bytes.subarray(0, 2));
    out.write(bytes.subarray(2, 4));
    out.write(bytes.subarray(4));
    expect(readFileSync(file, 'utf8')).toBe('é漢\n');
  });

  it('two streams\' partial lines never mix', () => {
    const file = logFile();
    const log = new RelayLog(file);
    const out = log.stream();
    const err = log.stream();
    out.write('from stdout, ');
    err.write('from stderr, ');
    err.write('whole\n');
    out.write('whole\n');
    expect(readFileSync(file, 'utf8')).toBe('from stderr, whole\nfrom stdout, whole\n');
  });

  it('a line longer than the cap is cut as soon as it passes it, saying so, and the rest of it dropped', () => {
    const file = logFile();
    const out = new RelayLog(file).stream();
    const { lineChars } = RELAY_LOG_LIMITS;
    // 4 MiB without a newline, in pieces: bounded before its end ever comes.
    for (let i = 0; i < 64; i++) out.write('x'.repeat(64 * 1024));
    const cut = `${'x'.repeat(lineChars)} [cut: a line longer than ${lineChars} characters]\n`;
    expect(readFileSync(file, 'utf8')).toBe(cut);
    out.write('xxx\nnext\n');
    expect(readFileSync(file, 'utf8')).toBe(`${cut}next\n`);
  });

  it('rotates past maxBytes, keeps `keep` rotated files, and so holds at most (keep + 1) × maxBytes', () => {
    const file = logFile();
    const limits = { maxBytes: 1000, keep: 2, lineChars: 100 };
    const out = new RelayLog(file, limits).stream();
    for (let i = 0; i < 500; i++) out.write(`line ${String(i).padStart(4, '0')} ${'.'.repeat(40)}\n`);
    for (const f of [file, `${file}.1`, `${file}.2`]) expect(statSync(f).size).toBeLessThanOrEqual(limits.maxBytes);
    // A rotated file was filled up to its last whole line.
    for (const f of [`${file}.1`, `${file}.2`]) expect(statSync(f).size).toBeGreaterThan(limits.maxBytes - 60);
    expect(existsSync(`${file}.3`)).toBe(false);
    const current = readFileSync(file, 'utf8');
    expect(current.endsWith(`line 0499 ${'.'.repeat(40)}\n`)).toBe(true);
    // Lines are never split across files, and the newest are kept in order.
    const kept = [readFileSync(`${file}.2`, 'utf8'), readFileSync(`${file}.1`, 'utf8'), current].join('').split('\n').filter(Boolean);
    const numbers = kept.map((l) => Number(l.slice(5, 9)));
    expect(numbers).toEqual(numbers.map((_, i) => 500 - numbers.length + i));
  });

  it('a log longer than maxBytes left by an older run is rotated at the first line', () => {
    const file = logFile();
    const limits = { maxBytes: 1000, keep: 1, lineChars: 100 };
    new RelayLog(file, { ...limits, maxBytes: 1_000_000 }).stream().write(`${'old\n'.repeat(1000)}`);
    new RelayLog(file, limits).stream().write('new\n');
    expect(readFileSync(file, 'utf8')).toBe('new\n');
    expect(statSync(`${file}.1`).size).toBe(4000);
  });

  it('never throws: a line that cannot be written (its directory gone) is lost, and the relay goes on', () => {
    const file = logFile();
    const out = new RelayLog(file).stream();
    rmSync(join(file, '..'), { recursive: true });
    expect(() => out.write('lost\n')).not.toThrow();
    expect(() => out.end()).not.toThrow();
  });
});
