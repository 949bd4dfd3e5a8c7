/**
 * A command's arguments checked against its record (`commands.ts`) before anything runs: help
 * asked for, unknown options (with the nearest known one), the action, extra positionals. Every
 * refusal is a `UsageError` naming the command; what the values mean is the command's own business.
 */
import { parseArgs } from 'node:util';
import type { Command, Invocation } from './commands.ts';
import { closest } from './suggest.ts';

/** A command line its command cannot take; the message is whole, `vimrelay <command>: ...`. */
export class UsageError extends Error {
  constructor(name: string, problem: string) {
    super(`vimrelay ${name}: ${problem}`);
    this.name = 'UsageError';
  }
}

/** Whether `args` ask for help: `--help` or `-h` anywhere before a `--`. */
export function asksForHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((a) => a === '--help' || a === '-h');
}

/** `; did you mean `x`?` when a candidate is close to `typed`, else nothing. */
function didYouMean(typed: string, candidates: readonly string[], quote = (s: string): string => `\`${s}\``): string {
  const meant = closest(typed, candidates);
  return meant === undefined ? '' : `; did you mean ${quote(meant)}?`;
}

/** The first option in `args` that `c` does not have, as a refusal with the nearest one it has. */
function unknownOption(c: Command, name: string, args: string[]): UsageError | undefined {
  const { tokens } = parseArgs({ args, options: c.options, strict: false, allowPositionals: true, tokens: true });
  const unknown = tokens.find((t) => t.kind === 'option' && !Object.hasOwn(c.options, t.name));
  if (unknown?.kind !== 'option') return undefined;
  const longs = [...Object.keys(c.options), 'help'].map((o) => `--${o}`);
  const hint = unknown.rawName.startsWith('--') ? didYouMean(unknown.rawName, longs, (s) => s) : '';
  return new UsageError(name, `unknown option ${unknown.rawName}${hint} (vimrelay ${name} --help lists its options)`);
}

/** `args` of `vimrelay <name>` as `c` takes them; throws a UsageError for anything it does not. */
export function parseCommandArgs(c: Command, name: string, args: string[]): Invocation {
  const unknown = unknownOption(c, name, args);
  if (unknown) throw unknown;
  let parsed;
  try {
    parsed = parseArgs({ args, options: c.options, allowPositionals: true });
  } catch (err) {
    // Node's own words for what remains (an option without its value), under the command's name.
    throw new UsageError(name, (err as Error).message);
  }
  const positionals = [...parsed.positionals];
  let action: string | undefined;
  if (c.actions) {
    const actions = `(actions: ${c.actions.join(', ')})`;
    action = positionals.shift();
    if (action === undefined) throw new UsageError(name, `name an action ${actions}`);
    if (!c.actions.includes(action)) throw new UsageError(name, `unknown action "${action}"${didYouMean(action, c.actions)} ${actions}`);
  }
  const extra = positionals[c.positionals];
  if (extra !== undefined) throw new UsageError(name, `unexpected argument "${extra}" (vimrelay ${name} --help)`);
  return { name, action, positionals, values: parsed.values };
}
