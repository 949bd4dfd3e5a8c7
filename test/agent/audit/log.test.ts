// The audit log: JSON lines, 0600, a digest of the arguments and never the arguments,
// rotation by size keeping a bounded number of files, and reading the last N across rotations.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { argsDigest, AuditLog, canonicalJson, readAudit, type AuditEntry } from '../../../agent/audit/log.ts';
import { tempDir } from '../../helpers/temp.ts';

const entry = (i: number): AuditEntry => ({
  time: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
  client: 'pat:ci',
  editor: 'nvim-1',
  tool: 'read_buffer',
  args_digest: argsDigest({ i }),
  decision: 'allow',
  outcome: 'ok',
  duration_ms: i,
});

describe('argsDigest', () => {
  it('is 16 hex characters, the same for the same arguments in any key order', () => {
    expect(argsDigest({ a: 1, b: [1, { c: 'x', d: null }] })).toMatch(/^[0-9a-f]{16}$/);
    expect(argsDigest({ b: [1, { d: null, c: 'x' }], a: 1 })).toBe(argsDigest({ a: 1, b: [1, { c: 'x', d: null }] }));
    expect(argsDigest({ a: 1 })).not.toBe(argsDigest({ a: 2 }));
    expect(canonicalJson({ z: 1, a: { y: 'é', b: undefined } })).toBe('{"a":{"y":"é"},"z":1}');
  });
});

describe('AuditLog', () => {
  it('appends JSON lines to a 0600 file', () => {
    const file = join(tempDir('vimrelay-audit-'), 'state', 'audit.log');
    const log = new AuditLog(file);
    log.append(entry(1));
    log.append(entry(2));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as unknown)).toEqual([entry(1), entry(2)]);
    expect(readAudit(file, 1)).toEqual([entry(2)]);
  });

  it('rotates by size, keeps `keep` old files, and reads the last N across them', () => {
    const file = join(tempDir('vimrelay-audit-'), 'audit.log');
    const lineBytes = JSON.stringify(entry(10)).length + 1;
    const log = new AuditLog(file, { maxBytes: lineBytes * 2, keep: 2 });
    for (let i = 10; i < 20; i++) log.append(entry(i));
    // Two lines per file: 18-19 current, 16-17 in .1, 14-15 in .2; older ones dropped.
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(2);
    expect(existsSync(`${file}.1`)).toBe(true);
    expect(existsSync(`${file}.2`)).toBe(true);
    expect(existsSync(`${file}.3`)).toBe(false);
    expect(readAudit(file, 100, 2).map((e) => e.duration_ms)).toEqual([14, 15, 16, 17, 18, 19]);
    expect(readAudit(file, 3, 2).map((e) => e.duration_ms)).toEqual([17, 18, 19]);
    expect(statSync(`${file}.1`).mode & 0o777).toBe(0o600);
  });
});
