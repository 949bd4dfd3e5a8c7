/** `GET /health`: liveness. Touches no binding, so it answers even when the Hub cannot. */
import { Hono } from 'hono';
import type { AppEnv } from './types.ts';

export const health = new Hono<AppEnv>().get('/', (c) => c.json({ ok: true, name: 'vimrelay' }));
