// Text from elsewhere reaches the terminal as text, never as its commands (agent/cli/printable.ts):
// the real `vimrelay` prints the audit log's client names, the policy's names and a relay's device
// names and error messages with every control, format and separator character escaped (an
// escape sequence that would retitle the window, clear the screen or reorder the line shows as
// `\x1b…`), its tables aligned on what is shown. (`vimrelay status` with an editor in a directory
// so named: e2e/agent-life.test.ts.)
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditLog } from '../../../agent/audit/log.ts';
import { printable } from '../../../agent/cli/printable.ts';
import { paths } from '../../../agent/config/paths.ts';
import { writePolicy } from '../../../agent/policy/file.ts';
import { CLI, isolatedEnv, runCli } from '../../helpers/agent-process.ts';

/** What a hostile name carries: a title change, a screen clear, a cursor move, CR, an 8-bit CSI, a bidi override, a zero-width space, a line separator. */
const HOSTILE = 'ok\x1b]0;pwned\x07\x1b[2J\x1b[1;1H\r\x9b31m\u202eevil\u200b\u2028end';
const SHOWN = 'ok\\x1b]0;pwned\\x07\\x1b[2J\\x1b[1;1H\\x0d\\x9b31m\\u202eevil\\u200b\\u2028end';

/** Whether `output` holds a character a terminal would act on or hide, other than its own line breaks. */
const raw = (output: string): boolean => /[\p{Cc}\p{Cf}\u2028\u2029]/u.test(output.replaceAll('\n', ''));

describe('printable', () => {
  it('escapes controls, format characters and separators, and leaves other text alone', () => {
    expect(printable(HOSTILE)).toBe(SHOWN);
    expect(printable('tab\there, del\x7f, nul\0')).toBe('tab\\x09here, del\\x7f, nul\\x00');
    expect(printable('é 日本 😀 a\\b "q"')).toBe('é 日本 😀 a\\b "q"');
    expect(printable('tag \u{e0041}')).toBe('tag \\u{e0041}');
  });
});

describe('the CLI as a user runs it', () => {
  it('`vimrelay log` escapes a client\'s and an editor\'s names, its columns aligned on what it shows', () => {
    const env = isolatedEnv();
    const audit = new AuditLog(paths(env).audit);
    const entry = { time: '2026-12-01T02:15:01.000Z', tool: 'read_buffer', args_digest: '0123456789abcdef', decision: 'allow' as const, outcome: 'ok', duration_ms: 3 };
    audit.append({ ...entry, client: `oauth:${HOSTILE}`, editor: `nvim-1/${HOSTILE}` });
    audit.append({ ...entry, client: 'pat:plain', editor: 'nvim-2' });
    const log = runCli(['log'], env);
    expect(log.status).toBe(0);
    expect(raw(log.stdout)).toBe(false);
    const [header, hostile, plain] = log.stdout.trimEnd().split('\n');
    expect(hostile).toContain(`oauth:${SHOWN}  nvim-1/${SHOWN}`);
    expect(plain?.indexOf('read_buffer')).toBe(hostile?.indexOf('read_buffer'));
    expect(header?.indexOf('TOOL')).toBe(hostile?.indexOf('read_buffer'));
  });

  it('`vimrelay rules` escapes the names and globs of the policy file', () => {
    const env = isolatedEnv();
    writePolicy(paths(env).policy, { rules: [{ klass: 'exec', decision: 'allow', chosenName: HOSTILE }], never_read: [`${HOSTILE}*`] });
    const rules = runCli(['rules'], env);
    expect(rules.status).toBe(0);
    expect(raw(rules.stdout)).toBe(false);
    expect(rules.stdout).toContain(`1. exec allow --chosen-name ${SHOWN}`);
    expect(rules.stdout).toContain(`never_read:\n  ${SHOWN}*\n`);
  });

  describe('against a relay that answers with hostile names', () => {
    let relay: Server;
    let url: string;
    const run = async (args: string[]): Promise<{ code: number; stdout: string; stderr: string }> => {
      const env = isolatedEnv({ VIMRELAY_OWNER_SECRET: 'secret' });
      try {
        const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, ...args], { env, encoding: 'utf8' });
        return { code: 0, stdout, stderr };
      } catch (error) {
        const failed = error as { code: number; stdout: string; stderr: string };
        return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
      }
    };

    beforeAll(async () => {
      relay = createServer((req, res) => {
        if (req.url === '/admin/devices') {
          const device = { created_at: '2026-12-01T00:00:00.000Z', last_seen_at: null, online: false, revoked_at: null, revoked: false };
          res.writeHead(200, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify({ devices: [{ ...device, id: 'd1', name: HOSTILE, hostname: HOSTILE }, { ...device, id: 'd2', name: 'laptop', hostname: 'box' }] }));
        } else {
          res.writeHead(500, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify({ error: { code: 'BROKEN', message: HOSTILE } }));
        }
      });
      await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(relay.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => relay.close(() => resolve())));

    it('`vimrelay devices` escapes their names in its table, aligned on what it shows', async () => {
      const devices = await run(['devices', '--relay', url]);
      expect(devices.code, devices.stderr).toBe(0);
      expect(raw(devices.stdout)).toBe(false);
      const [header, hostile, plain] = devices.stdout.trimEnd().split('\n');
      expect(hostile).toContain(`d1  ${SHOWN}  ${SHOWN}`);
      expect(plain?.indexOf('offline')).toBe(hostile?.indexOf('offline'));
      expect(header?.indexOf('STATE')).toBe(hostile?.indexOf('offline'));
    });

    it('an error quoting the relay\'s message escapes it', async () => {
      const revoke = await run(['devices', '--relay', url, '--revoke', 'd1']);
      expect(revoke.code).toBe(1);
      expect(raw(revoke.stderr)).toBe(false);
      expect(revoke.stderr).toContain(SHOWN);
    });
  });
});
