import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

// Sealing an account secret's value for the store (AES-256-GCM under the
// operator's PAGEWATCH_SECRETS_KEY). The account and the secret's name are
// bound in as associated data, so a sealed value copied to another row or
// account does not open. Layout: 12-byte nonce, 16-byte tag, ciphertext.

const NONCE_BYTES = 12;
const TAG_BYTES = 16;

function associated(accountId: string, name: string): Buffer {
  return Buffer.from(`pagewatch-secret:${accountId}:${name}`, 'utf8');
}

export function sealSecret(key: Buffer, accountId: string, name: string, value: string): Buffer {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(associated(accountId, name));
  const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
  return Buffer.concat([nonce, cipher.getAuthTag(), body]);
}

/** The value, or null when the sealed bytes do not open with this key for this account and name. */
export function openSecret(key: Buffer, accountId: string, name: string, sealed: Uint8Array): string | null {
  const bytes = Buffer.from(sealed);
  if (bytes.length < NONCE_BYTES + TAG_BYTES) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, NONCE_BYTES));
    decipher.setAAD(associated(accountId, name));
    decipher.setAuthTag(bytes.subarray(NONCE_BYTES, NONCE_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(NONCE_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}
