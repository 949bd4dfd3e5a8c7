/**
 * `vimrelay` command line: finds the command (`commands.ts` lists them, with their usage), answers
 * help and usage errors itself, and runs the command with its checked arguments (`args.ts`).
 * `vimrelay help [command]`, `--help` and `-h` print on stdout and exit 0, as `--version` (`-V`)
 * does with the agent's version; an unknown command
 * exits 2 (with the nearest command, or the list); any other refusal or failure prints one
 * `vimrelay...:` message on stderr and exits 1, unless the command says otherwise.
 * The owner secret is read from $VIMRELAY_OWNER_SECRET, never from the command line (which other
 * users can see in the process list). Each command's module is loaded only when it runs, so that
 * `vimrelay --help` and the small commands start without loading the editors, the relay link or
 * the MCP server.
 */
import { asksForHelp, parseCommandArgs, UsageError } from './args.ts';
import { COMMAND_WORDS, commandHelp, commandNamed, USAGE } from './commands.ts';
import { closest } from './suggest.ts';
import { AGENT_VERSION } from '../version.ts';
import { printable, printableLines } from './printable.ts';

/** Says that `word` is no command: with the nearest one, or else the list of them. Exit code 2. */
function unknownCommand(word: string): number {
  const meant = closest(word, COMMAND_WORDS);
  process.stderr.write(
    meant === undefined
      ? `vimrelay: unknown command "${printable(word)}"\n\n${USAGE}`
      : `vimrelay: unknown command "${printable(word)}"; did you mean \`${meant}\`? (vimrelay --help lists the commands)\n`,
  );
  return 2;
}

/** `vimrelay help [command]`: the command's usage, or every command's. */
function help(topic: string | undefined): number {
  if (topic === undefined) {
    process.stdout.write(USAGE);
    return 0;
  }
  const c = commandNamed(topic);
  if (!c) return unknownCommand(topic);
  process.stdout.write(commandHelp(c, topic));
  return 0;
}

export async function main(argv: string[]): Promise<number> {
  const [word, ...rest] = argv;
  if (word === undefined) {
    process.stdout.write(USAGE);
    return 2;
  }
  if (word === 'help' || word === '--help' || word === '-h') return help(rest[0]);
  if (word === '--version' || word === '-V') {
    process.stdout.write(`vimrelay ${AGENT_VERSION}\n`);
    return 0;
  }
  const c = commandNamed(word);
  if (!c) return unknownCommand(word);
  if (asksForHelp(rest)) return help(word);
  try {
    return await c.run(parseCommandArgs(c, word, rest));
  } catch (err) {
    // Messages quote what they refuse (a relay's answer, a file's name or text): printed, not obeyed.
    process.stderr.write(printableLines(err instanceof UsageError ? `${err.message}\n` : `vimrelay: ${err instanceof Error ? err.message : String(err)}\n`));
    return 1;
  }
}
