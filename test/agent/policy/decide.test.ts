// The policy's decisions: class defaults, the last matching rule wins, editor and path
// globs, a chosen name matched exactly and never by an unnamed editor of the same name, several
// paths take the strictest answer, a path rule never matches a call with no path.
import { describe, expect, it } from 'vitest';
import { CLASS_DEFAULTS, decide } from '../../../agent/policy/decide.ts';
import type { PolicyQuery, Rule } from '../../../agent/policy/types.ts';

const q = (klass: PolicyQuery['klass'], editorName = 'nvim:proj', paths: string[] = [], chosenName: string | null = null): PolicyQuery => ({ klass, editorName, chosenName, paths });

describe('decide', () => {
  it('falls back to the class defaults of README "Permissions"', () => {
    expect(CLASS_DEFAULTS).toEqual({ read: 'allow', write: 'allow', open: 'allow', save: 'ask', exec: 'ask', terminal: 'ask' });
    for (const klass of ['read', 'write', 'open', 'save', 'exec', 'terminal'] as const) {
      expect(decide({ rules: [] }, q(klass))).toEqual({ decision: CLASS_DEFAULTS[klass], rule: null });
    }
  });

  it('lets the last matching rule win, and ignores rules of other classes', () => {
    const rules: Rule[] = [
      { klass: 'exec', decision: 'allow' },
      { klass: 'save', decision: 'deny' },
      { klass: 'exec', decision: 'deny', editor: 'work-*' },
    ];
    expect(decide({ rules }, q('exec', 'home'))).toEqual({ decision: 'allow', rule: rules[0] });
    expect(decide({ rules }, q('exec', 'work-1'))).toEqual({ decision: 'deny', rule: rules[2] });
    expect(decide({ rules: [...rules, { klass: 'exec', decision: 'ask' }] }, q('exec', 'work-1')).decision).toBe('ask');
    expect(decide({ rules }, q('read')).decision).toBe('allow');
  });

  it('matches editor globs against the whole name', () => {
    const rules: Rule[] = [{ klass: 'read', decision: 'deny', editor: 'nvim' }];
    expect(decide({ rules }, q('read', 'nvim')).decision).toBe('deny');
    expect(decide({ rules }, q('read', 'nvim:proj')).decision).toBe('allow');
  });

  it('matches a chosen name exactly, and never an editor whose name is only its directory\'s', () => {
    const rules: Rule[] = [{ klass: 'exec', decision: 'allow', chosenName: 'work' }];
    expect(decide({ rules }, q('exec', 'work', [], 'work')).decision).toBe('allow');
    // Another editor in a folder named work: the same name, not chosen.
    expect(decide({ rules }, q('exec', 'work', [], null)).decision).toBe('ask');
    expect(decide({ rules }, q('exec', 'work#2', [], 'work-2')).decision).toBe('ask');
    expect(decide({ rules }, q('exec', 'work', [], 'wor*')).decision).toBe('ask');
    expect(decide({ rules: [{ klass: 'exec', decision: 'allow', chosenName: 'wor*' }] }, q('exec', 'work', [], 'work')).decision).toBe('ask');
  });

  it('never matches a path rule to a call that addresses no path', () => {
    const rules: Rule[] = [{ klass: 'write', decision: 'deny', path: '**' }];
    expect(decide({ rules }, q('write')).decision).toBe('allow');
    expect(decide({ rules }, q('write', 'e', ['/a/b'])).decision).toBe('deny');
  });

  it('decides each of several paths and keeps the strictest: deny > ask > allow', () => {
    const rules: Rule[] = [
      { klass: 'write', decision: 'ask', path: '/src/**' },
      { klass: 'write', decision: 'deny', path: '*.lock' },
    ];
    expect(decide({ rules }, q('write', 'e', ['/tmp/a', '/src/x.ts'])).decision).toBe('ask');
    expect(decide({ rules }, q('write', 'e', ['/src/x.ts', '/tmp/a'])).decision).toBe('ask');
    expect(decide({ rules }, q('write', 'e', ['/tmp/a', '/src/yarn.lock', '/src/x.ts']))).toEqual({ decision: 'deny', rule: rules[1] });
    expect(decide({ rules }, q('write', 'e', ['/tmp/a', '/tmp/b']))).toEqual({ decision: 'allow', rule: null });
  });

  it('expands ~/ in path globs to the home given', () => {
    const rules: Rule[] = [{ klass: 'open', decision: 'deny', path: '~/private/**' }];
    expect(decide({ rules }, q('open', 'e', ['/home/me/private/x']), '/home/me').decision).toBe('deny');
    expect(decide({ rules }, q('open', 'e', ['/home/you/private/x']), '/home/me').decision).toBe('allow');
  });
});
