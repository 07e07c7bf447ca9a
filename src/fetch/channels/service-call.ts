import type { Clock } from '../../clock.ts';
import { parseRetryAfter } from '../loader/http-headers.ts';
import { guardedPost } from '../ssrf/guarded-request.ts';
import type { GuardPolicy, LookupFn } from '../ssrf/guard.ts';

// One request to a chat or push service, through the SSRF guard like a
// webhook, and what its answer means. A 2xx went through; 429 and 5xx are
// retried, honouring the service's Retry-After (Telegram says it in the body's
// parameters.retry_after); any other 4xx fails the message at once, since no
// retry would change it (channel-sender.ts says whether the channel itself is refused).

const CHANNEL_TIMEOUT_MS = 15_000;

export interface ChannelSettings {
  policy: GuardPolicy;
  clock: Clock;
  /** PAGEWATCH_CHANNEL_HOST_OVERRIDES: service host → origin its requests go to instead */
  hostOverrides: Record<string, string>;
  lookup?: LookupFn;
  timeoutMs?: number;
}

export interface ServiceRequest {
  method: 'GET' | 'POST' | 'PUT';
  url: string;
  headers: Record<string, string>;
  /** sent as JSON; none for a GET */
  body?: unknown;
}

/**
 * A call's outcome (the shape of notify's SendResult, which the dispatcher
 * records) and the service's own answer (its first 64 KiB), null when nothing answered.
 */
export type ChannelSendResult = (
  | { outcome: 'delivered'; responseStatus: number }
  | { outcome: 'retry'; responseStatus: number | null; error: string; retryAfterSeconds?: number }
  | { outcome: 'failed'; responseStatus: number | null; error: string; channelRefused?: boolean }
) & { answer: string | null };

/** The URL with its origin replaced when the operator maps the service's host elsewhere. */
function overriddenUrl(url: string, overrides: Record<string, string>): string {
  const parsed = new URL(url);
  const origin = overrides[parsed.hostname];
  return origin === undefined ? url : `${origin}${parsed.pathname}${parsed.search}`;
}

function telegramRetryAfter(answer: string | undefined): number | undefined {
  try {
    const seconds = (JSON.parse(answer ?? '') as { parameters?: { retry_after?: unknown } }).parameters?.retry_after;
    return typeof seconds === 'number' && seconds >= 0 ? seconds : undefined;
  } catch {
    return undefined;
  }
}

/** The service's own words, short, for the delivery log. */
function said(answer: string | undefined): string {
  const text = (answer ?? '').replace(/\s+/g, ' ').trim();
  return text === '' ? '' : `: ${text.slice(0, 200)}`;
}

export async function callService(settings: ChannelSettings, request: ServiceRequest): Promise<ChannelSendResult> {
  const now = settings.clock.now();
  const answer = await guardedPost(
    overriddenUrl(request.url, settings.hostOverrides),
    {
      method: request.method,
      headers: {
        ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
        'user-agent': 'pagewatch-channels',
        ...request.headers,
      },
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      timeoutMs: settings.timeoutMs ?? CHANNEL_TIMEOUT_MS,
      lookup: settings.lookup,
      readAnswer: true,
    },
    settings.policy,
  );
  if (!answer.ok) {
    const error = answer.error.message || answer.error.name;
    // The channel's host itself is refused: no message to it will ever be sent.
    if (answer.blocked)
      return { outcome: 'failed', responseStatus: null, error: `refused by the SSRF guard: ${error}`, channelRefused: true, answer: null };
    return { outcome: 'retry', responseStatus: null, error, answer: null };
  }
  const { status } = answer;
  const text = answer.answer ?? '';
  if (status >= 200 && status < 300) return { outcome: 'delivered', responseStatus: status, answer: text };
  const error = `the service answered ${status}${said(answer.answer)}`;
  if (status === 429 || status >= 500) {
    const retryAfterSeconds = parseRetryAfter(answer.headers['retry-after'], now.getTime()) ?? telegramRetryAfter(answer.answer);
    return { outcome: 'retry', responseStatus: status, error, retryAfterSeconds, answer: text };
  }
  return { outcome: 'failed', responseStatus: status, error, answer: text };
}
