// Types of `cloudflare:workers` `env` and `exports` inside the workerd test runner.
import type { Env as WorkerEnv } from '../../worker/env.ts';

declare global {
  namespace Cloudflare {
    interface GlobalProps {
      mainModule: typeof import('../../worker/index.ts');
      durableNamespaces: 'Hub';
    }
    // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging
    interface Env extends WorkerEnv {}
  }
}
