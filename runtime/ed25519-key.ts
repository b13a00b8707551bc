import { createPublicKey, type KeyObject } from 'node:crypto';

/**
 * Reads an Ed25519 public key: a PEM (SPKI; `\n` escapes allowed, as env files write them) or its
 * base64 DER. Throws when it is not one, so a bad key stops the start rather than every later use.
 */
export function parseEd25519PublicKey(text: string): KeyObject {
  const trimmed = text.trim();
  const key = trimmed.startsWith('-----BEGIN')
    ? createPublicKey(trimmed.replace(/\\n/g, '\n'))
    : createPublicKey({ key: Buffer.from(trimmed, 'base64'), format: 'der', type: 'spki' });
  if (key.asymmetricKeyType !== 'ed25519')
    throw new Error(`the key is ${key.asymmetricKeyType ?? 'not asymmetric'}, not Ed25519`);
  return key;
}
