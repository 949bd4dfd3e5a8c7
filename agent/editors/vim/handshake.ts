/**
 * The Vim channel's handshake (PROTOCOL.md "Vim channel"): a challenge and response in both
 * directions over the vim token, which itself never crosses the channel. Vim speaks first, with a
 * fresh nonce; the agent answers with its own nonce and a proof that it holds the token; only
 * when that proof is right does Vim (plugin/vim/autoload/vimrelay.vim) switch the channel to JSON
 * mode, in which it would run commands the peer sends, and say hello with its own proof. Each
 * proof is HMAC-SHA256 (RFC 2104) keyed by the token over
 * `<label> "\n" <SHA-256 of the address, hex> "\n" <nonce> "\n" <nonce>` — the label says who
 * proves, the address (`unix:<path>`, or `127.0.0.1:<port>`, as Vim dialled it and the agent
 * listens on it) ties the proof to one listener, so that a proof the agent gives on one address
 * cannot be relayed to a Vim that dialled another, and the nonces make every proof fresh.
 * Pure: message schemas, nonces, proofs.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

/** The handshake's version: the `v` of the challenge. */
export const VIM_HANDSHAKE_VERSION = 2;

const Hex64 = z.string().regex(/^[0-9a-f]{64}$/);

/** Vim's first message: `[0, {type: "challenge", v: 2, nonce}]`. */
export const VimChallenge = z.strictObject({
  type: z.literal('challenge'),
  v: z.literal(VIM_HANDSHAKE_VERSION),
  nonce: Hex64,
});
export type VimChallenge = z.infer<typeof VimChallenge>;

/** The proof field of Vim's hello. */
export const VimProof = Hex64;

/** Who proves: the agent answering the challenge, or Vim in its hello. */
export type ProofLabel = 'vimrelay-agent' | 'vimrelay-vim';

/** 32 bytes from the CSPRNG, hex. */
export function newNonce(): string {
  return randomBytes(32).toString('hex');
}

/** The proof `label` gives for `address` over the nonces `first` then `second` (see the header). */
export function proof(token: string, label: ProofLabel, address: string, first: string, second: string): string {
  const where = createHash('sha256').update(address, 'utf8').digest('hex');
  return createHmac('sha256', token).update(`${label}\n${where}\n${first}\n${second}`).digest('hex');
}

/** Whether `presented` is the expected proof, compared in constant time. */
export function proofMatches(presented: string, expected: string): boolean {
  const a = Buffer.from(presented, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The agent's answer to a challenge: its nonce and its proof over Vim's nonce and its own. */
export function answerChallenge(token: string, address: string, challenge: VimChallenge): { type: 'proof'; nonce: string; proof: string } {
  const nonce = newNonce();
  return { type: 'proof', nonce, proof: proof(token, 'vimrelay-agent', address, challenge.nonce, nonce) };
}
