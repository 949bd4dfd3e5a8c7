// Types of `cloudflare:workers` `env` and `exports` inside the workerd test runner.
import type { Env as WorkerEnv } from '../../worker/env.ts';

declare global {
  namespace Cloudflare {
    interface GlobalProps {
      mainModule: typeof import('../../worker/index.ts');
      durableNamespaces: 'Hub';
    }
    interface Env extends WorkerEnv {
      /** The `workers-egress` project's record of the Worker's outbound requests (egress/network.ts). */
      readonly EGRESS_LOG?: Fetcher;
    }
  }
}
