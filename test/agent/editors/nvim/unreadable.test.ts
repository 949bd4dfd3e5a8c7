// An idle agent on a shared machine: another account's `nvim.<user>` directory in the shared
// temporary directory (what Neovim 0.8+ makes there without $XDG_RUNTIME_DIR), which the user may
// not read. Run as a second local account (uid 65534; root only), a scan does not count it among
// the nvim directories to watch, and watching it does not leave the watch incomplete: before, it
// did, and the agent fell back to reading every scan root through, every second, for nothing (a
// deep scan of a thousand entries a second: 1.5 to 4 % of a core, idle).
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { ROOT } from '../../../../scripts/local-relay.ts';
import { asOther, describeAsOther, itAsOther } from '../../../helpers/other-user.ts';

const SCRIPT = `
import { scanSockets } from ${JSON.stringify(join(ROOT, 'agent/editors/nvim/discovery.ts'))};
import { DirWatch } from ${JSON.stringify(join(ROOT, 'agent/editors/nvim/dir-watch.ts'))};
const root = process.argv[1];
const scan = await scanSockets([root]);
const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const watch = new DirWatch(() => {}, quiet);
watch.set([{ path: root, nvimNamesOnly: true }, ...scan.nvimDirs.map((path) => ({ path, nvimNamesOnly: false })), { path: root + '/nvim.root', nvimNamesOnly: false }]);
console.log(JSON.stringify({ nvimDirs: scan.nvimDirs, complete: watch.complete }));
watch.close();
`;

describeAsOther('another account\'s nvim directory in a shared temporary directory', () => {
  let shared: string;
  beforeAll(() => {
    shared = mkdtempSync(join(tmpdir(), 'vimrelay-shared-'));
    chmodSync(shared, 0o1777);
    mkdirSync(join(shared, 'nvim.root'), { mode: 0o700 });
    expect(asOther('mkdir', ['-m', '0700', join(shared, 'nvim.other')]).status).toBe(0);
  });
  afterAll(() => rmSync(shared, { recursive: true, force: true }));

  itAsOther('is neither watched nor polled: the scan lists only the directories it could read, and the watch stays complete', () => {
    const run = asOther(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', SCRIPT, shared], { cwd: ROOT, env: { ...process.env, HOME: '/', TSX_DISABLE_CACHE: '1' } });
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ nvimDirs: [join(shared, 'nvim.other')], complete: true });
  });
});
