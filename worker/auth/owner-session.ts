/**
 * The owner's browser session as the routes use it: a cookie that is authentic (`session.ts`: its
 * HMAC under OWNER_SECRET, its expiry) and live on the server (the Hub's `hub/sessions.ts` still
 * records its id). Signing in records the session, signing out forgets it, so a copied cookie dies
 * with the sign-out. The session id reaches the Hub only as its SHA-256.
 */
import { hubFor } from '../account.ts';
import type { Env } from '../env.ts';
import { hashSecret } from './pairing.ts';
import { readSession, startSession, type Session } from './session.ts';

/** Starts and records a session; the Set-Cookie value that carries it. */
export async function beginOwnerSession(env: Env, secret: string, nowMs: number): Promise<string> {
  const { session, setCookie } = await startSession(secret, nowMs);
  await hubFor(env).startSession(await hashSecret(session.id), session.expiresAtMs);
  return setCookie;
}

/** The request's session when its cookie is authentic, unexpired and still live on the server; else null. */
export async function currentSession(env: Env, request: Request, secret: string, nowMs: number): Promise<Session | null> {
  const session = await readSession(request, secret, nowMs);
  if (!session) return null;
  return (await hubFor(env).sessionLive(await hashSecret(session.id))) ? session : null;
}

/** Ends `session` on the server: its cookie stops working wherever a copy of it is. */
export async function endOwnerSession(env: Env, session: Session): Promise<void> {
  await hubFor(env).endSession(await hashSecret(session.id));
}

/** Ends every session of the owner: every browser must sign in again. */
export function endEveryOwnerSession(env: Env): Promise<number> {
  return hubFor(env).endAllSessions();
}
