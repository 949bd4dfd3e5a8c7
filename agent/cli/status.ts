/** `vimrelay status`: reads the running agent's status file and checks that it is alive. */
import { paths } from '../config/paths.ts';
import { readStatus } from '../config/status.ts';

export function statusCommand(): number {
  const status = readStatus(paths().status);
  if (!status || !isAlive(status.pid) || status.state === 'stopped') {
    process.stdout.write('agent: not running\n');
    return 3;
  }
  const out = [
    `agent: running (pid ${status.pid})`,
    `relay: ${status.relay_url} — ${status.state}${status.device ? ` as ${status.device}` : ''}${status.reason ? ` (${status.reason})` : ''}`,
    `editors: ${status.editors.length}`,
    ...status.editors.map((e) => `  ${e.id}  ${e.kind}  ${e.name}  ${e.cwd}`),
  ];
  process.stdout.write(out.join('\n') + '\n');
  return 0;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
