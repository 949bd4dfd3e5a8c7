/**
 * The relay's token-signing key pair: generated on first use, kept as JWKs in the Hub's SQLite
 * storage, loaded once per object instance. Owns the `signing_keys` table. A later JWKS endpoint
 * (OAuth) publishes the public halves from here.
 */
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import { TOKEN_ALG } from './claims.ts';

/** A usable key: `kid` is the RFC 7638 thumbprint of the public JWK. */
export interface SigningKey {
  readonly kid: string;
  readonly privateKey: CryptoKey;
  readonly publicKey: CryptoKey;
}

const SCHEMA = `CREATE TABLE IF NOT EXISTS signing_keys (
  kid TEXT PRIMARY KEY,
  private_jwk TEXT NOT NULL,
  public_jwk TEXT NOT NULL,
  created_at INTEGER NOT NULL
)`;

type KeyRow = { kid: string; private_jwk: string; public_jwk: string };

export class SigningKeys {
  private current: Promise<SigningKey> | undefined;

  constructor(private readonly sql: SqlStorage) {
    sql.exec(SCHEMA);
  }

  /**
   * The current key, created and stored if there is none. Memoised as a promise so that
   * concurrent first uses (the object interleaves requests across awaits) make one key.
   */
  get(nowMs: number): Promise<SigningKey> {
    this.current ??= this.loadOrCreate(nowMs).catch((err: unknown) => {
      this.current = undefined;
      throw err;
    });
    return this.current;
  }

  private async loadOrCreate(nowMs: number): Promise<SigningKey> {
    const row = this.sql.exec<KeyRow>('SELECT kid, private_jwk, public_jwk FROM signing_keys ORDER BY created_at DESC LIMIT 1').toArray()[0];
    if (row) {
      return {
        kid: row.kid,
        privateKey: (await importJWK(JSON.parse(row.private_jwk) as JWK, TOKEN_ALG)) as CryptoKey,
        publicKey: (await importJWK(JSON.parse(row.public_jwk) as JWK, TOKEN_ALG)) as CryptoKey,
      };
    }
    // extractable so that the private JWK can be stored; it never leaves this object.
    const { privateKey, publicKey } = await generateKeyPair(TOKEN_ALG, { extractable: true });
    const publicJwk = await exportJWK(publicKey);
    const privateJwk = await exportJWK(privateKey);
    const kid = await calculateJwkThumbprint(publicJwk);
    this.sql.exec(
      'INSERT INTO signing_keys (kid, private_jwk, public_jwk, created_at) VALUES (?, ?, ?, ?)',
      kid,
      JSON.stringify({ ...privateJwk, kid, alg: TOKEN_ALG }),
      JSON.stringify({ ...publicJwk, kid, alg: TOKEN_ALG, use: 'sig' }),
      nowMs,
    );
    return { kid, privateKey, publicKey };
  }
}
