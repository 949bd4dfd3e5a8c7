/**
 * `vimrelay` command line. Subcommands:
 *   agent   connect to the relay and serve this machine's editors
 *   serve   serve this machine's editors as a local MCP server (stdio, or HTTP on loopback)
 *   status  show what the running agent is doing
 *   pair    pair this machine with a relay: a code the owner approves in the browser
 *   devices list the relay's devices, or revoke one (owner secret required)
 *   enroll  create this machine's device credential directly (owner secret required)
 *   token   mint a personal access token for an MCP client (owner secret required)
 *   allow, ask, deny  add a rule to the permission policy;  rules  show it, or remove one
 *   log     show the audit log of calls
 *   service install, remove or inspect the login service that runs `vimrelay agent`
 * The owner secret is read from $VIMRELAY_OWNER_SECRET, never from the command line (which other
 * users can see in the process list). Each command's module is loaded only when it runs, so that
 * `vimrelay --help` and the small commands start without loading the editors, the relay link or
 * the MCP server.
 */
import { parseArgs } from 'node:util';

const USAGE = `usage: vimrelay <command> [options]

  agent  [--relay URL] [--discover-dir DIR]... [--vim-port N] [--verbose] [--service]
         Connect to the relay and serve every Neovim and Vim on this machine. Vims connect
         on a unix socket only the user can reach; with --vim-port, on 127.0.0.1:N too.
  serve  --stdio | --http [--port N]  [--discover-dir DIR]... [--vim-port N] [--verbose]
         Serve every Neovim and Vim on this machine as an MCP server, without a relay: over
         stdin/stdout for a client that starts it, or on http://127.0.0.1:N/mcp
         (default port 8788) with the access token it prints.
  status Show the running agent's state and editors.
  pair   <relay-url> [--name NAME]
         Pair this machine with a relay: shows a code for the relay's owner to approve in the
         browser, then stores the device credential. Then run \`vimrelay agent\`.
  devices [--relay URL] [--revoke ID]
         List the relay's devices with their last-seen times, or revoke one.
  enroll --relay URL [--name NAME]
         Create and store this machine's device credential directly, without pairing.
  token create --relay URL --name NAME [--scopes read,write,...] [--ttl-days N]
         Mint a personal access token for an MCP client and print it.
  allow|ask|deny CLASS [--editor GLOB] [--chosen-name NAME] [--path GLOB]
         Add a rule to the permission policy ($XDG_CONFIG_HOME/vimrelay/policy.json) for
         CLASS (read, write, open, save, exec, terminal); the last matching rule wins.
         --chosen-name: only an editor the user named NAME (:VimRelayName, g:vimrelay_name).
  rules  [--remove N]
         Show the policy: the defaults, the rules numbered in order, and the never_read
         globs. --remove N: take rule N out first (one "allow always" wrote, say).
  log    [-n N]
         Show the last N calls from the audit log ($XDG_STATE_HOME/vimrelay/audit.log).
  service install|uninstall|status [--relay URL]
         Keep \`vimrelay agent\` running at login (a systemd user service on Linux, a
         launchd agent on macOS), and say whether it runs and is connected.

Environment: VIMRELAY_OWNER_SECRET (devices, enroll, token), XDG_CONFIG_HOME, XDG_STATE_HOME.
`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'agent':
        return await (await import('./agent.ts')).agentCommand(parseArgs({
          args: rest,
          options: {
            relay: { type: 'string' },
            'discover-dir': { type: 'string', multiple: true },
            'vim-port': { type: 'string' },
            verbose: { type: 'boolean', default: false },
            service: { type: 'boolean', default: false },
          },
        }).values);
      case 'serve':
        return await (await import('./serve.ts')).serveCommand(parseArgs({
          args: rest,
          options: {
            stdio: { type: 'boolean', default: false },
            http: { type: 'boolean', default: false },
            port: { type: 'string' },
            'discover-dir': { type: 'string', multiple: true },
            'vim-port': { type: 'string' },
            verbose: { type: 'boolean', default: false },
          },
        }).values);
      case 'status':
        parseArgs({ args: rest, options: {} });
        return (await import('./status.ts')).statusCommand();
      case 'pair':
        return await (await import('./pair.ts')).pairCommand(parseArgs({ args: rest, allowPositionals: true, options: { name: { type: 'string' } } }));
      case 'devices':
        return await (await import('./devices.ts')).devicesCommand(parseArgs({
          args: rest,
          options: { relay: { type: 'string' }, revoke: { type: 'string' } },
        }).values);
      case 'enroll':
        return await (await import('./tokens.ts')).enrollCommand(parseArgs({
          args: rest,
          options: { relay: { type: 'string' }, name: { type: 'string' } },
        }).values);
      case 'token':
        return await (await import('./tokens.ts')).tokenCommand(parseArgs({
          args: rest,
          allowPositionals: true,
          options: {
            relay: { type: 'string' },
            name: { type: 'string' },
            scopes: { type: 'string' },
            'ttl-days': { type: 'string' },
          },
        }));
      case 'allow':
      case 'ask':
      case 'deny':
        return (await import('./policy.ts')).ruleCommand(command, parseArgs({ args: rest, allowPositionals: true, options: { editor: { type: 'string' }, 'chosen-name': { type: 'string' }, path: { type: 'string' } } }));
      case 'rules':
        return (await import('./policy.ts')).rulesCommand(parseArgs({ args: rest, options: { remove: { type: 'string' } } }).values);
      case 'service': {
        const { positionals, values } = parseArgs({ args: rest, allowPositionals: true, options: { relay: { type: 'string' } } });
        if (positionals.length !== 1) throw new Error('service takes one of install, uninstall, status');
        return (await import('./service.ts')).serviceCommand(positionals[0], values);
      }
      case 'log':
        return (await import('./log.ts')).logCommand(parseArgs({ args: rest, options: { n: { type: 'string', short: 'n' } } }).values);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        process.stdout.write(USAGE);
        return command === undefined ? 2 : 0;
      default:
        process.stderr.write(`vimrelay: unknown command ${command}\n\n${USAGE}`);
        return 2;
    }
  } catch (err) {
    process.stderr.write(`vimrelay: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}
