import { createHmac } from 'node:crypto';

// The Standard Webhooks signature (DESIGN §8): HMAC-SHA256 keyed with the
// base64-decoded part of the secret after "whsec_", over
// "<webhook-id>.<webhook-timestamp>.<body>", sent as "v1,<base64>".

const SECRET_PREFIX = 'whsec_';

/** The HMAC key of a `whsec_…` secret; throws on a secret of another shape. */
export function signingKey(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error('a webhook secret starts with "whsec_"');
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  if (key.length === 0) throw new Error('the webhook secret holds no key');
  return key;
}

/** The base64 signature of one message (without the "v1," prefix). */
export function signatureOf(key: Buffer, id: string, timestamp: number, body: string | Uint8Array): string {
  return createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest('base64');
}

/** The webhook-signature header value. */
export function signWebhook(secret: string, id: string, timestamp: number, body: string | Uint8Array): string {
  return `v1,${signatureOf(signingKey(secret), id, timestamp, body)}`;
}
