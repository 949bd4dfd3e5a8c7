// The policy file: absent = defaults, never_read absent = the default list and present
// = exactly that list, invalid files refused with the file and the problem named, written 0600 and
// pretty, rules replaced by class+editor+path, and a running store picking up changes.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { addRule, DEFAULT_NEVER_READ, PolicyFileError, PolicyStore, readPolicy } from '../../../agent/policy/file.ts';
import { tempDir } from '../../helpers/temp.ts';

let dir: string;
let file: string;
beforeEach(() => {
  dir = tempDir('vimrelay-policy-file-');
  file = join(dir, 'vimrelay', 'policy.json');
});

describe('readPolicy', () => {
  it('gives the defaults for an absent file', () => {
    expect(DEFAULT_NEVER_READ).toEqual(
      expect.arrayContaining(['.env*', '*.pem', '*.key', 'id_rsa*', 'id_ed25519*', '~/.ssh/**', '~/.aws/credentials', '.netrc', '.npmrc', '.pgpass', '~/.kube/config', '*.p12', '*.kdbx']),
    );
    expect(readPolicy(file)).toEqual({ rules: [], never_read: DEFAULT_NEVER_READ, neverReadDefault: true });
  });

  it('keeps the default never_read when the file names none, and exactly the list it names', () => {
    addRule(file, { klass: 'read', decision: 'allow' });
    writeFileSync(file, JSON.stringify({ rules: [{ class: 'exec', decision: 'deny', editor: 'w*', path: '/p/**' }] }));
    expect(readPolicy(file)).toEqual({ rules: [{ klass: 'exec', decision: 'deny', editor: 'w*', path: '/p/**' }], never_read: DEFAULT_NEVER_READ, neverReadDefault: true });
    writeFileSync(file, JSON.stringify({ rules: [], never_read: ['secret*'] }));
    expect(readPolicy(file).never_read).toEqual(['secret*']);
    writeFileSync(file, JSON.stringify({ never_read: [] }));
    expect(readPolicy(file)).toEqual({ rules: [], never_read: [] });
  });

  it('refuses an invalid file, naming it and what is wrong', () => {
    addRule(file, { klass: 'read', decision: 'allow' });
    const bad: [string, RegExp][] = [
      ['{ "rules": [', /not valid JSON/],
      [JSON.stringify({ rules: [{ class: 'exec', decision: 'maybe' }] }), /rules\[0\]\.decision/],
      [JSON.stringify({ rules: [{ class: 'shell', decision: 'allow' }] }), /rules\[0\]\.class/],
      [JSON.stringify({ rules: [{ class: 'exec', decision: 'allow', editr: 'x' }] }), /editr/],
      [JSON.stringify({ rules: [], never_reed: [] }), /never_reed/],
    ];
    for (const [text, problem] of bad) {
      writeFileSync(file, text);
      expect(() => readPolicy(file)).toThrow(PolicyFileError);
      expect(() => readPolicy(file)).toThrow(file);
      expect(() => readPolicy(file)).toThrow(problem);
    }
  });
});

describe('addRule', () => {
  it('writes the file 0600 and pretty, appending and replacing a rule with the same class, editor and path', () => {
    addRule(file, { klass: 'exec', decision: 'allow', editor: 'a' });
    addRule(file, { klass: 'exec', decision: 'deny' });
    addRule(file, { klass: 'exec', decision: 'ask', editor: 'a' });
    addRule(file, { klass: 'exec', decision: 'allow', chosenName: 'a' });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('\n    {\n      "class": "exec",');
    expect(JSON.parse(text)).toEqual({
      rules: [
        { class: 'exec', decision: 'deny' },
        { class: 'exec', decision: 'ask', editor: 'a' },
        // A chosen name is another rule than a glob on names, though the text is the same.
        { class: 'exec', decision: 'allow', chosen_name: 'a' },
      ],
    });
    expect(readPolicy(file).rules.at(-1)).toEqual({ klass: 'exec', decision: 'allow', chosenName: 'a' });
    // The file named no never_read, so it still names none: later default lists still apply.
    expect(readPolicy(file).neverReadDefault).toBe(true);
  });
});

describe('PolicyStore', () => {
  it('re-reads the file when it changes, and refuses once it turns invalid', () => {
    const store = new PolicyStore(file);
    expect(store.current().rules).toEqual([]);
    addRule(file, { klass: 'save', decision: 'allow' });
    expect(store.current().rules).toEqual([{ klass: 'save', decision: 'allow' }]);
    store.add({ klass: 'terminal', decision: 'deny' });
    expect(readPolicy(file).rules).toHaveLength(2);
    writeFileSync(file, '{ oops');
    expect(() => store.current()).toThrow(PolicyFileError);
    writeFileSync(file, JSON.stringify({ rules: [{ class: 'exec', decision: 'deny' }] }));
    expect(store.current().rules).toEqual([{ klass: 'exec', decision: 'deny' }]);
  });

  it('will not start from an invalid file', () => {
    addRule(file, { klass: 'read', decision: 'allow' });
    writeFileSync(file, '[]');
    expect(() => new PolicyStore(file)).toThrow(PolicyFileError);
  });
});
