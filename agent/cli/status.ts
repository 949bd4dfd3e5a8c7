/**
 * `vimrelay status`: reads the running agent's status file and checks that it is alive. What it
 * holds comes from editors and the relay (names, directories, reasons): printed through printable.ts.
 */
import { paths } from '../config/paths.ts';
import { liveStatus, readStatus } from '../config/status.ts';
import { describeHolder, holderFile, readHolder } from '../editors/vim/holder.ts';
import { pendingPageUrl } from '../relay/decisions.ts';
import { printable } from './printable.ts';

/**
 * Who serves the user's Vims (vim/holder.ts), and, when that is not the running agent `agentPid`,
 * that its relay does not see them.
 */
function vimsLine(agentPid: number | null): string {
  const holder = readHolder(holderFile());
  if (!holder) return 'vims: no vimrelay process says it serves Vims';
  const who = printable(describeHolder(holder));
  if (agentPid === null || holder.pid === agentPid) return `vims: served by ${who}`;
  return `vims: served by ${who}; the agent (pid ${agentPid}) does not see them until serve yields the Vim socket to it (within seconds)`;
}

export function statusCommand(): number {
  const status = readStatus(paths().status);
  if (status?.state === 'replaced' || status?.state === 'refused') {
    // The agent stopped because a newer one took its device over (on another machine, or with
    // another state directory, since a newer agent here would have written its own status), or
    // because another agent held the device and this one could not prove it may take over.
    process.stdout.write(`agent: not running (${printable(status.state)} at ${printable(status.updated_at)}: ${printable(status.reason ?? 'another agent connected as this device')})\n`);
    return 3;
  }
  const live = liveStatus(status);
  if (!live) {
    // Vims may still be served, by serve.
    const vims = readHolder(holderFile()) ? `${vimsLine(null)}\n` : '';
    process.stdout.write(`agent: not running\n${vims}`);
    return 3;
  }
  const out = [
    `agent: running (pid ${live.pid})`,
    `relay: ${printable(live.relay_url)} — ${printable(live.state)}${live.device ? ` as ${printable(live.device)}` : ''}${live.reason ? ` (${printable(live.reason)})` : ''}`,
    `editors: ${live.editors.length}`,
    ...live.editors.map((e) => `  ${[e.id, e.kind, e.name, e.cwd].map(printable).join('  ')}`),
    vimsLine(live.pid),
    // Prompts and reviews can be answered on the relay's Pending page (README "Deciding from elsewhere").
    `pending: ${live.pending ?? 0} waiting; answer them in the editor or at ${printable(pendingPageUrl(live.relay_url))}`,
    ...(live.warnings ?? []).map((w) => `warning (${printable(w.at)}): ${printable(w.message)}`),
  ];
  process.stdout.write(out.join('\n') + '\n');
  return 0;
}
