import { createHmac, timingSafeEqual } from 'node:crypto';

// Standard Webhooks verification for pagewatch deliveries: the signature is
// an HMAC-SHA256, keyed with the base64-decoded part of the secret after
// "whsec_", over "<webhook-id>.<webhook-timestamp>.<body bytes>".

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** how far webhook-timestamp may be from `now`, in seconds; default 300 */
  toleranceSeconds?: number;
  /** default the current time */
  now?: Date;
}

export type VerifyResult = { ok: true; id: string; timestamp: number } | { ok: false; reason: string };

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The v1 signature of a delivery, base64. */
export function webhookSignature(secret: string, id: string, timestamp: number, body: string | Uint8Array): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest('base64');
}

/**
 * Verifies a delivery over the exact body bytes received (not re-serialised
 * JSON). The tolerance stops a captured delivery from being replayed later;
 * keep `id` to drop the duplicates that at-least-once delivery sends.
 */
export function verifyWebhook(
  secret: string,
  headers: WebhookHeaders,
  body: string | Uint8Array,
  options: VerifyOptions = {},
): VerifyResult {
  const id = header(headers, 'webhook-id');
  const timestampText = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestampText || !signatures) return { ok: false, reason: 'missing webhook-id, webhook-timestamp or webhook-signature' };
  if (!/^\d+$/.test(timestampText)) return { ok: false, reason: 'webhook-timestamp is not unix seconds' };
  const timestamp = Number(timestampText);
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(now - timestamp) > (options.toleranceSeconds ?? 300))
    return { ok: false, reason: 'webhook-timestamp is outside the tolerance' };

  const expected = Buffer.from(webhookSignature(secret, id, timestamp, body), 'base64');
  // The header may list several space-separated signatures (e.g. during a secret rotation).
  for (const entry of signatures.split(' ')) {
    const [version, encoded] = entry.split(',', 2);
    if (version !== 'v1' || !encoded) continue;
    const candidate = Buffer.from(encoded, 'base64');
    if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) return { ok: true, id, timestamp };
  }
  return { ok: false, reason: 'no valid v1 signature' };
}
