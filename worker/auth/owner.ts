/**
 * The owner's credential: OWNER_SECRET presented as a bearer token on /admin. Owns the comparison
 * only. Both sides are hashed with SHA-256 first so that the constant-time comparison sees equal
 * lengths and the secret's length does not leak through timing.
 */

/** Whether `presented` equals `secret`, compared in constant time. False when either is empty. */
export async function ownerSecretMatches(presented: string, secret: string): Promise<boolean> {
  if (!presented || !secret) return false;
  const encoder = new TextEncoder();
  const [a, b] = await Promise.all([
    crypto.subtle.digest('SHA-256', encoder.encode(presented)),
    crypto.subtle.digest('SHA-256', encoder.encode(secret)),
  ]);
  // workerd's non-standard SubtleCrypto.timingSafeEqual (equal lengths required: both are 32 bytes).
  return crypto.subtle.timingSafeEqual(a, b);
}
