import type { Clock } from '../clock.ts';
import { parseRetryAfter } from '../fetch/loader/http-headers.ts';
import { guardedPost } from '../fetch/ssrf/guarded-request.ts';
import type { GuardPolicy, LookupFn } from '../fetch/ssrf/guard.ts';
import type { SendResult } from './send-result.ts';
import { signWebhook } from './webhook-signature.ts';

// One webhook delivery attempt (DESIGN §8): a signed POST through the SSRF
// guard, no redirects followed, 15 s for the whole exchange.

export const WEBHOOK_TIMEOUT_MS = 15_000;

export interface WebhookSettings {
  policy: GuardPolicy;
  clock: Clock;
  /** DNS resolution for the guard; default the system resolver */
  lookup?: LookupFn;
  timeoutMs?: number;
}

export async function sendWebhook(
  settings: WebhookSettings,
  delivery: { id: string; url: string; secret: string; body: string },
): Promise<SendResult> {
  const now = settings.clock.now();
  const timestamp = Math.floor(now.getTime() / 1000);
  const answer = await guardedPost(
    delivery.url,
    {
      headers: {
        'content-type': 'application/json',
        'user-agent': 'pagewatch-webhooks',
        'webhook-id': delivery.id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signWebhook(delivery.secret, delivery.id, timestamp, delivery.body),
      },
      body: delivery.body,
      timeoutMs: settings.timeoutMs ?? WEBHOOK_TIMEOUT_MS,
      lookup: settings.lookup,
    },
    settings.policy,
  );
  if (!answer.ok) {
    const error = answer.error.message || answer.error.name;
    // An address the guard refuses stays refused on every retry.
    if (answer.blocked) return { outcome: 'failed', responseStatus: null, error: `refused by the SSRF guard: ${error}` };
    return { outcome: 'retry', responseStatus: null, error };
  }
  const { status } = answer;
  if (status >= 200 && status < 300) return { outcome: 'delivered', responseStatus: status };
  if (status === 410) return { outcome: 'failed', responseStatus: status, error: 'the endpoint answered 410 Gone' };
  return {
    outcome: 'retry',
    responseStatus: status,
    error: `the endpoint answered ${status}`,
    retryAfterSeconds: parseRetryAfter(answer.headers['retry-after'], now.getTime()),
  };
}
