/** The Hono environment every route shares: the Worker's bindings. */
import type { Env } from '../env.ts';

export type AppEnv = { Bindings: Env };
