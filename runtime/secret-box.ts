import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const VERSION = 'sb1';
const KEY_FILE = 'secrets.key';

/** Where a server's sealing key came from. */
export type SecretKeySource = 'config' | 'key_file';

/**
 * Seals secrets that must stay usable (two-factor secrets) for storage: AES-256-GCM with a random
 * 96-bit nonce, the caller's `context` (an account id) as associated data so a sealed value moved
 * to another record does not open, and a key id so a value sealed under another key fails with a
 * clear error rather than garbage. Also derives keyed hashes (HMAC) for short codes, which a plain
 * SHA-256 would not protect (a 6-digit code has only a million values).
 */
export class SecretBox {
  private readonly keyId: string;
  private readonly derived = new Map<string, Buffer>();

  private constructor(
    private readonly key: Buffer,
    readonly source: SecretKeySource,
  ) {
    this.keyId = createHash('sha256').update(key).digest('hex').slice(0, 8);
  }

  /** The box for `key` (32 bytes). */
  static fromKey(key: Buffer, source: SecretKeySource = 'config'): SecretBox {
    if (key.length !== 32) throw new Error('a secret box key is 32 bytes');
    return new SecretBox(Buffer.from(key), source);
  }

  /**
   * The server's box: the base64 key from configuration when given, else the key in
   * `<dataDir>/secrets.key`, created (mode 0600) on first use.
   */
  static open(dataDir: string, configuredKey: string | undefined): SecretBox {
    if (configuredKey) return SecretBox.fromKey(Buffer.from(configuredKey, 'base64'), 'config');
    mkdirSync(dataDir, { recursive: true });
    const path = join(dataDir, KEY_FILE);
    let key: Buffer;
    try {
      key = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      key = randomBytes(32);
      // wx: two processes starting at once cannot both write a key; the loser reads the winner's.
      try {
        writeFileSync(path, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
      } catch (raced) {
        if ((raced as NodeJS.ErrnoException).code !== 'EEXIST') throw raced;
        key = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
      }
      chmodSync(path, 0o600);
    }
    if (key.length !== 32) throw new Error(`${path} does not hold a 32-byte base64 key`);
    return SecretBox.fromKey(key, 'key_file');
  }

  /** Seals `plaintext` for the record `context`. */
  seal(plaintext: string, context: string): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [
      VERSION,
      this.keyId,
      nonce.toString('base64url'),
      cipher.getAuthTag().toString('base64url'),
      body.toString('base64url'),
    ].join('.');
  }

  /** Opens a value sealed for `context`; throws when it was sealed under another key, for another record, or altered. */
  open(sealed: string, context: string): string {
    const [version, keyId, nonce, tag, body] = sealed.split('.');
    if (version !== VERSION || !nonce || !tag || body === undefined) throw new Error('not a sealed secret');
    if (keyId !== this.keyId)
      throw new Error(
        `secret sealed under another key (${keyId}); the server key changed (SVC_SECRETS_KEY or secrets.key)`,
      );
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(nonce, 'base64url'));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }

  /** A keyed hash (HMAC-SHA-256 under a key derived for `purpose`), hex: for low-entropy codes at rest. */
  keyedHash(purpose: string, value: string): string {
    let derived = this.derived.get(purpose);
    if (!derived)
      this.derived.set(
        purpose,
        (derived = Buffer.from(hkdfSync('sha256', this.key, Buffer.alloc(0), `svc:${purpose}`, 32))),
      );
    return createHmac('sha256', derived).update(value).digest('hex');
  }
}
