import type { ChannelType } from '../channel-urls.ts';

// Whether a service's refusal is of the channel itself (revoked credentials, a
// deleted webhook, a chat that is gone), so that no later message can go
// through either, rather than of one message. 401, 403, 404 and 410 are for
// every service; some services say it with a 400 and their own words.

const CHANNEL_GONE = [401, 403, 404, 410];

function json(answer: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(answer);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function startsWith(value: unknown, prefix: string): boolean {
  return typeof value === 'string' && value.startsWith(prefix);
}

function refusedWith400(type: ChannelType, answer: string): boolean {
  switch (type) {
    case 'pushover': {
      // {"token":"invalid","errors":[…],"status":0}: the application token or the user key is not (or no longer) valid.
      const body = json(answer);
      return body.token === 'invalid' || body.user === 'invalid';
    }
    case 'telegram':
      return startsWith(json(answer).description, 'Bad Request: chat not found');
    case 'googlechat': {
      // Google's APIs answer a revoked or deleted API key with 400 INVALID_ARGUMENT "API key not valid".
      const error = json(answer).error as { message?: unknown } | undefined;
      return startsWith(error?.message, 'API key not valid');
    }
    default:
      return false;
  }
}

export function refusesChannel(type: ChannelType, status: number, answer: string): boolean {
  return CHANNEL_GONE.includes(status) || (status === 400 && refusedWith400(type, answer));
}
