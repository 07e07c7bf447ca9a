import type { IncomingHttpHeaders } from 'node:http';
import { createGuardedAgent } from './guarded-agent.ts';
import { GuardError, vetUrl, type GuardPolicy, type LookupFn } from './guard.ts';

// One POST through the SSRF guard, for webhook delivery (DESIGN §8), or a
// chat service's PUT or lookup (GET): the URL
// is vetted, the connection goes to a vetted address, redirects are not
// followed (a 3xx is just an answer), and the whole exchange has a deadline.

export interface GuardedPostOptions {
  /** POST unless a service's API asks for PUT (Matrix's idempotent send) or GET (Matrix's room alias lookup) */
  method?: 'POST' | 'PUT' | 'GET';
  headers?: Record<string, string>;
  /** none for a GET */
  body?: string | Uint8Array;
  /** deadline for the whole exchange; default 15000 ms (the webhook rule) */
  timeoutMs?: number;
  /** DNS resolution; default the system resolver */
  lookup?: LookupFn;
  /** keep the answer's first 64 KiB as text (a chat service says why it refused in the body) */
  readAnswer?: boolean;
}

export type GuardedPostResult =
  | { ok: true; status: number; headers: IncomingHttpHeaders; answer?: string }
  /** blocked: the guard refused the URL or its address (GuardError); otherwise a network error or timeout */
  | { ok: false; blocked: boolean; error: Error };

// A webhook's answer body is read only to free the connection; webhooks need the status.
const ANSWER_BODY_LIMIT = 64 * 1024;

export async function guardedPost(url: string, init: GuardedPostOptions, policy: GuardPolicy): Promise<GuardedPostResult> {
  const vetted = vetUrl(url, policy);
  if (!vetted.ok) return { ok: false, blocked: true, error: new GuardError(vetted.reason) };
  const timeoutMs = init.timeoutMs ?? 15_000;
  const agent = createGuardedAgent({
    policy,
    lookup: init.lookup,
    connectTimeoutMs: Math.min(10_000, timeoutMs),
    headersTimeoutMs: timeoutMs,
    bodyTimeoutMs: timeoutMs,
  });
  try {
    const response = await agent.request({
      origin: vetted.url.origin,
      path: `${vetted.url.pathname}${vetted.url.search}`,
      method: init.method ?? 'POST',
      headers: init.headers,
      body: init.body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!init.readAnswer) {
      await response.body.dump({ limit: ANSWER_BODY_LIMIT });
      return { ok: true, status: response.statusCode, headers: response.headers };
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body) {
      if (size < ANSWER_BODY_LIMIT) chunks.push(chunk as Buffer);
      size += (chunk as Buffer).length;
    }
    const answer = Buffer.concat(chunks).subarray(0, ANSWER_BODY_LIMIT).toString('utf8');
    return { ok: true, status: response.statusCode, headers: response.headers, answer };
  } catch (err) {
    const error = err instanceof Error ? err : new Error(String(err));
    return { ok: false, blocked: error instanceof GuardError, error };
  } finally {
    await agent.destroy();
  }
}
