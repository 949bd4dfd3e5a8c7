/** `vimrelay status`: reads the running agent's status file and checks that it is alive. */
import { paths } from '../config/paths.ts';
import { liveStatus, readStatus } from '../config/status.ts';

export function statusCommand(): number {
  const status = readStatus(paths().status);
  if (status?.state === 'replaced' || status?.state === 'refused') {
    // The agent stopped because a newer one took its device over (on another machine, or with
    // another state directory, since a newer agent here would have written its own status), or
    // because another agent held the device and this one could not prove it may take over.
    process.stdout.write(`agent: not running (${status.state} at ${status.updated_at}: ${status.reason ?? 'another agent connected as this device'})\n`);
    return 3;
  }
  const live = liveStatus(status);
  if (!live) {
    process.stdout.write('agent: not running\n');
    return 3;
  }
  const out = [
    `agent: running (pid ${live.pid})`,
    `relay: ${live.relay_url} — ${live.state}${live.device ? ` as ${live.device}` : ''}${live.reason ? ` (${live.reason})` : ''}`,
    `editors: ${live.editors.length}`,
    ...live.editors.map((e) => `  ${e.id}  ${e.kind}  ${e.name}  ${e.cwd}`),
    ...(live.warnings ?? []).map((w) => `warning (${w.at}): ${w.message}`),
  ];
  process.stdout.write(out.join('\n') + '\n');
  return 0;
}
