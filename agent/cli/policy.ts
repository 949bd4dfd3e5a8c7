/**
 * `vimrelay allow|ask|review|deny CLASS [--editor GLOB] [--chosen-name NAME] [--path GLOB]` and `vimrelay
 * rules [--remove N]`: edit and show the policy file (agent/policy/file.ts). A new rule is
 * appended, replacing one with the same class, editor, chosen name and path, so it is the last
 * and wins (agent/policy/decide.ts); `--remove N` takes out rule N as `rules` numbers it (one
 * that "allow always" at a prompt wrote, say). A running agent picks either up at its next call.
 * The file stays hand-editable.
 */
import { PERMISSION_CLASSES, SURFACES, type PermissionClass, type Surface } from '../../protocol/index.ts';
import { paths } from '../config/paths.ts';
import { CLASS_DEFAULTS, describeRule } from '../policy/decide.ts';
import { addRule, readPolicy, removeRule, setAskVia } from '../policy/file.ts';
import { REVIEWABLE_CLASSES, type Decision, type Rule } from '../policy/types.ts';
import { closest } from './suggest.ts';
import { printable } from './printable.ts';

/** `vimrelay <decision> CLASS [--editor GLOB] [--chosen-name NAME] [--path GLOB]`: appends the rule, prints it. */
export function ruleCommand(
  decision: Decision,
  klass: string | undefined,
  values: { editor?: string | undefined; 'chosen-name'?: string | undefined; path?: string | undefined },
): number {
  if (klass === undefined) throw new Error(`usage: vimrelay ${decision} CLASS [--editor GLOB] [--chosen-name NAME] [--path GLOB]; CLASS is one of ${PERMISSION_CLASSES.join(', ')}`);
  if (!isClass(klass)) {
    const meant = closest(klass, PERMISSION_CLASSES);
    throw new Error(`unknown class "${klass}"; ${meant ? `did you mean \`${meant}\`? It is` : 'it is'} one of ${PERMISSION_CLASSES.join(', ')}`);
  }
  if (decision === 'review' && !REVIEWABLE_CLASSES.includes(klass)) {
    throw new Error(`review is for the ${REVIEWABLE_CLASSES.join(', ')} class only: a review shows an edit as a diff (try \`vimrelay review write${values.path === undefined ? '' : ` --path ${values.path}`}\`)`);
  }
  const { editor, path } = values;
  const chosenName = values['chosen-name'];
  if (editor === '' || path === '' || chosenName === '') throw new Error('--editor, --chosen-name and --path take a non-empty value');
  const rule: Rule = {
    klass,
    decision,
    ...(editor === undefined ? {} : { editor }),
    ...(chosenName === undefined ? {} : { chosenName }),
    ...(path === undefined ? {} : { path }),
  };
  const file = paths().policy;
  addRule(file, rule);
  process.stdout.write(`added: ${printable(describeRule(rule))}\n(${printable(file)})\n`);
  return 0;
}

/**
 * `vimrelay rules`: the class defaults, then each rule numbered in file order, then never_read,
 * one glob a line, and what is withheld whatever it says (policy/own-files.ts).
 * With `--remove N`: takes out rule N first and says which it was.
 */
export function rulesCommand(values: { remove?: string | undefined }): number {
  const file = paths().policy;
  if (values.remove !== undefined) {
    if (!/^[1-9]\d*$/.test(values.remove)) throw new Error(`usage: vimrelay rules [--remove N]; N is a rule's number as \`vimrelay rules\` shows it, not "${values.remove}"`);
    const removed = removeRule(file, Number(values.remove));
    process.stdout.write(`removed: ${printable(describeRule(removed))}\n`);
  }
  const policy = readPolicy(file);
  const out = [
    `policy: ${printable(file)}`,
    'defaults:',
    ...PERMISSION_CLASSES.map((k) => `  ${k.padEnd(8)} ${CLASS_DEFAULTS[k]}`),
    policy.rules.length === 0 ? 'rules: none' : 'rules (the last matching rule wins):',
    ...policy.rules.map((r, i) => `  ${String(i + 1).padStart(2)}. ${printable(describeRule(r))}`),
    policy.never_read.length === 0 ? 'never_read: none' : `never_read${policy.neverReadDefault ? ' (the default list)' : ''}:`,
    ...policy.never_read.map((glob) => `  ${printable(glob)}`),
    `ask_via: ${askViaText(policy.askVia)}`,
    'always withheld, whatever the policy says: vimrelay\'s own files (its config and state directories, any .dev.vars, anything under .wrangler/)',
  ];
  process.stdout.write(out.join('\n') + '\n');
  return 0;
}

/** How `rules` and `ask-via` show where decisions may be answered. */
function askViaText(askVia: readonly Surface[] | undefined): string {
  return askVia === undefined ? `${SURFACES.join(', ')} (the default: wherever one reaches you)` : askVia.join(', ');
}

/**
 * `vimrelay ask-via [SURFACE,...|all]`: where prompts and reviews may be answered (README
 * "Deciding from elsewhere"): some of editor, dashboard, assistant; `all` goes back to the default,
 * every one that can reach the user. Without an argument, prints the setting.
 */
export function askViaCommand(value: string | undefined): number {
  const file = paths().policy;
  if (value !== undefined) {
    const words = value.split(',').map((w) => w.trim()).filter((w) => w !== '');
    if (words.length === 1 && words[0] === 'all') {
      setAskVia(file, undefined);
    } else {
      if (words.length === 0) throw new Error(`usage: vimrelay ask-via SURFACE[,SURFACE...] | all; SURFACE is one of ${SURFACES.join(', ')}`);
      for (const word of words) {
        if (!(SURFACES as readonly string[]).includes(word)) {
          const meant = closest(word, [...SURFACES, 'all']);
          throw new Error(`unknown surface "${word}"; ${meant ? `did you mean \`${meant}\`? It is` : 'it is'} one of ${SURFACES.join(', ')}, or all`);
        }
      }
      setAskVia(file, [...new Set(words as Surface[])]);
    }
  }
  process.stdout.write(`ask_via: ${askViaText(readPolicy(file).askVia)}\n(${printable(file)})\n`);
  return 0;
}

function isClass(s: string): s is PermissionClass {
  return (PERMISSION_CLASSES as readonly string[]).includes(s);
}
