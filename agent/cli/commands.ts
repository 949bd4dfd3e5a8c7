/**
 * The `vimrelay` commands, one record each: the words that run it, its usage, its options, the
 * actions and positionals it takes, and how to run it. `vimrelay --help`, `<command> --help` and
 * the parsing of arguments (`args.ts`) all read this list, so they cannot disagree. Each command's
 * module is imported only when it runs: this file and what it imports must stay light enough for
 * `vimrelay --help` and the error paths to start without loading zod, the editors, the relay link
 * or the MCP server.
 */
import type { parseArgs, ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

/** What `parseArgs` makes of a command line for `options` (with positionals allowed). */
type Values<O extends Options> = ReturnType<typeof parseArgs<{ options: O; allowPositionals: true }>>['values'];

/** A command line, parsed and checked against its command's record. */
export interface Invocation<V = Record<string, unknown>, N extends string = string> {
  /** The word it was run by (`allow`, `ask`, `review` or `deny` for the one record they share). */
  name: N;
  /** The action named, for a command that has actions (`service install`). */
  action: string | undefined;
  /** The positionals after the action, at most the record's `positionals`. */
  positionals: string[];
  values: V;
}

export interface Command {
  /** The words that run it: one, or several for commands that differ only by their word. */
  readonly names: readonly string[];
  /** What follows the word (and the actions) in a usage line. */
  readonly synopsis: string;
  /** What it does, in lines of prose. */
  readonly about: string;
  readonly options: Options;
  /** The actions its first positional must name, when it has any. */
  readonly actions?: readonly string[];
  /** How many positionals it takes after its action, at most. */
  readonly positionals: number;
  run(invocation: Invocation): Promise<number> | number;
}

/** A record whose `run` sees its own words' and options' types. */
function command<const N extends string, const O extends Options>(
  record: Omit<Command, 'names' | 'options' | 'run'> & { names: readonly N[]; options: O; run(invocation: Invocation<Values<O>, N>): Promise<number> | number },
): Command {
  return record;
}

/** For commands that talk to a relay: `--insecure` allows plain http:// to another machine (config/relay-url.ts). */
const insecure = { insecure: { type: 'boolean', default: false } } as const;

const discovery = {
  'discover-dir': { type: 'string', multiple: true },
  'vim-port': { type: 'string' },
  verbose: { type: 'boolean', default: false },
} as const;

export const COMMANDS: readonly Command[] = [
  command({
    names: ['agent'],
    synopsis: '[--relay URL] [--discover-dir DIR]... [--vim-port N] [--verbose] [--service] [--insecure]',
    about: 'Connect to the relay and serve every Neovim and Vim on this machine. Vims connect\non a unix socket only the user can reach; with --vim-port, on 127.0.0.1:N too.',
    options: { relay: { type: 'string' }, ...insecure, ...discovery, service: { type: 'boolean', default: false } },
    positionals: 0,
    run: async ({ values }) => (await import('./agent.ts')).agentCommand(values),
  }),
  command({
    names: ['serve'],
    synopsis: '--stdio | --http [--port N]  [--tools SET[+SET]...] [--discover-dir DIR]... [--vim-port N] [--verbose]',
    about:
      'Serve every Neovim and Vim on this machine as an MCP server, without a relay: over\nstdin/stdout for a client that starts it, or on http://127.0.0.1:N/mcp\n(default port 8788) with the access token it prints. --tools lists and serves only\nthose toolsets: read, edit, lsp, exec, show (read+lsp: reading and navigation).',
    options: { stdio: { type: 'boolean', default: false }, http: { type: 'boolean', default: false }, port: { type: 'string' }, tools: { type: 'string' }, ...discovery },
    positionals: 0,
    run: async ({ values }) => (await import('./serve.ts')).serveCommand(values),
  }),
  command({
    names: ['status'],
    synopsis: '',
    about: "Show the running agent's state and editors.",
    options: {},
    positionals: 0,
    run: async () => (await import('./status.ts')).statusCommand(),
  }),
  command({
    names: ['pair'],
    synopsis: '<relay-url> [--name NAME] [--ticket TICKET] [--insecure]',
    about:
      "Pair this machine with a relay: shows a code for the relay's owner to approve in the\nbrowser, then stores the device credential. Then run `vimrelay agent`. A ticket from the\nrelay's /pair page gets the request in however many others wait. A relay on another\nmachine needs https://, unless --insecure (every command that takes a relay).",
    options: { name: { type: 'string' }, ticket: { type: 'string' }, ...insecure },
    positionals: 1,
    run: async ({ positionals, values }) => (await import('./pair.ts')).pairCommand(positionals[0], values),
  }),
  command({
    names: ['devices'],
    synopsis: '[--relay URL] [--revoke ID] [--insecure]',
    about: "List the relay's devices with their last-seen times, or revoke one.",
    options: { relay: { type: 'string' }, ...insecure, revoke: { type: 'string' } },
    positionals: 0,
    run: async ({ values }) => (await import('./devices.ts')).devicesCommand(values),
  }),
  command({
    names: ['enroll'],
    synopsis: '--relay URL [--name NAME] [--insecure]',
    about: "Create and store this machine's device credential directly, without pairing.",
    options: { relay: { type: 'string' }, ...insecure, name: { type: 'string' } },
    positionals: 0,
    run: async ({ values }) => (await import('./tokens.ts')).enrollCommand(values),
  }),
  command({
    names: ['token'],
    actions: ['create'],
    synopsis: '--relay URL --name NAME [--scopes read,write,...] [--ttl-days N] [--insecure]',
    about: 'Mint a personal access token for an MCP client and print it.',
    options: { relay: { type: 'string' }, ...insecure, name: { type: 'string' }, scopes: { type: 'string' }, 'ttl-days': { type: 'string' } },
    positionals: 0,
    run: async ({ values }) => (await import('./tokens.ts')).tokenCommand(values),
  }),
  command({
    names: ['allow', 'ask', 'review', 'deny'],
    synopsis: 'CLASS [--editor GLOB] [--chosen-name NAME] [--path GLOB]',
    about:
      'Add a rule to the permission policy ($XDG_CONFIG_HOME/vimrelay/policy.json) for\nCLASS (read, write, open, save, exec, terminal); the last matching rule wins.\nreview (write only): each edit opens as a diff in the editor, to accept or reject.\n--chosen-name: only an editor the user named NAME (:VimRelayName, g:vimrelay_name).',
    options: { editor: { type: 'string' }, 'chosen-name': { type: 'string' }, path: { type: 'string' } },
    positionals: 1,
    run: async ({ name, positionals, values }) => (await import('./policy.ts')).ruleCommand(name, positionals[0], values),
  }),
  command({
    names: ['rules'],
    synopsis: '[--remove N]',
    about: 'Show the policy: the defaults, the rules numbered in order, and the never_read\nglobs. --remove N: take rule N out first (one "allow always" wrote, say).',
    options: { remove: { type: 'string' } },
    positionals: 0,
    run: async ({ values }) => (await import('./policy.ts')).rulesCommand(values),
  }),
  command({
    names: ['ask-via'],
    synopsis: '[SURFACE,...|all]',
    about:
      'Where prompts and reviews may be answered: editor, dashboard (the relay\'s Pending\npage), assistant; the first answer wins. all: wherever one reaches you (the\ndefault). Without an argument, shows the setting.',
    options: {},
    positionals: 1,
    run: async ({ positionals }) => (await import('./policy.ts')).askViaCommand(positionals[0]),
  }),
  command({
    names: ['log'],
    synopsis: '[-n N]',
    about: 'Show the last N calls from the audit log ($XDG_STATE_HOME/vimrelay/audit.log).',
    options: { n: { type: 'string', short: 'n' } },
    positionals: 0,
    run: async ({ values }) => (await import('./log.ts')).logCommand(values),
  }),
  command({
    names: ['service'],
    actions: ['install', 'uninstall', 'status'],
    synopsis: '[--relay URL] [--insecure]',
    about: 'Keep `vimrelay agent` running at login (a systemd user service on Linux, a\nlaunchd agent on macOS), and say whether it runs and is connected.',
    options: { relay: { type: 'string' }, ...insecure },
    positionals: 0,
    run: async ({ action, values }) => (await import('./service.ts')).serviceCommand(action, values),
  }),
];

/** The record `word` runs, if any. */
export function commandNamed(word: string): Command | undefined {
  return COMMANDS.find((c) => c.names.includes(word));
}

/** Every word that runs a command, `help` included: what a mistyped one is compared with. */
export const COMMAND_WORDS: readonly string[] = [...COMMANDS.flatMap((c) => c.names), 'help'];

/** What follows `vimrelay <word>` in the command's usage line. */
function synopsis(c: Command): string {
  return [c.actions?.join('|'), c.synopsis].filter(Boolean).join(' ');
}

const indent = (text: string, by: string): string => text.replace(/^/gm, by);

/** `vimrelay <name> --help`: the command's usage line and what it does. */
export function commandHelp(c: Command, name: string): string {
  return `usage: vimrelay ${`${name} ${synopsis(c)}`.trimEnd()}\n\n${indent(c.about, '  ')}\n`;
}

/** `vimrelay --help`: every command. */
export const USAGE = `usage: vimrelay <command> [options]

${COMMANDS.map((c) => `  ${`${c.names.join('|').padEnd(6)} ${synopsis(c)}`.trimEnd()}\n${indent(c.about, '         ')}`).join('\n')}

Run \`vimrelay <command> --help\` for one command's usage; \`vimrelay --version\` prints the version.
Environment: VIMRELAY_OWNER_SECRET (devices, enroll, token), XDG_CONFIG_HOME, XDG_STATE_HOME.
`;
