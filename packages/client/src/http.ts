import { errorFromResponse, type PagewatchError } from './errors.js';

export interface ClientOptions {
  /** the server's address, e.g. "https://pagewatch.example.org" (the /api/v1 prefix is added) */
  baseUrl: string;
  /** an API token, "pwk_…" */
  token: string;
  /** how many times a 429 or 503 answer is retried after its Retry-After; default 3 */
  maxRetries?: number;
  /** the longest Retry-After, in seconds, worth waiting for; a longer one is thrown at once; default 120 */
  maxRetryAfterSeconds?: number;
  /** the fetch implementation; default the global fetch */
  fetch?: typeof fetch;
  /** how to wait; default a timer (tests may advance a clock instead) */
  sleep?: (ms: number) => Promise<void>;
}

export interface RequestOptions {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  idempotencyKey?: string;
  /** false for requests that must never be repeated on their own (preview loads cost a credit) */
  retry?: boolean;
}

export interface ApiResponse<T> {
  status: number;
  body: T;
  headers: Headers;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The transport: bearer token, JSON, and waiting out 429 (a limit: the
 * request was not counted) and 503 (API closed or renderer busy) answers as
 * long as their Retry-After is reasonable. Jitter spreads the retries of many
 * clients that were told the same time.
 */
export class Transport {
  private readonly baseUrl: string;
  private readonly fetch: typeof fetch;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: ClientOptions) {
    this.baseUrl = `${options.baseUrl.replace(/\/+$/, '')}/api/v1`;
    this.fetch = options.fetch ?? globalThis.fetch;
    this.sleep = options.sleep ?? realSleep;
  }

  async request<T>(request: RequestOptions): Promise<ApiResponse<T>> {
    const maxRetries = request.retry === false ? 0 : (this.options.maxRetries ?? 3);
    for (let attempt = 0; ; attempt++) {
      const response = await this.send(request);
      const body: unknown = response.status === 204 ? undefined : await response.json().catch(() => undefined);
      if (response.ok) return { status: response.status, body: body as T, headers: response.headers };
      const error = errorFromResponse(response.status, response.headers, body);
      if (!this.worthRetrying(error, attempt, maxRetries)) throw error;
      const jitter = Math.floor(Math.random() * 250);
      await this.sleep((error.retryAfter ?? 1) * 1000 + jitter);
    }
  }

  private worthRetrying(error: PagewatchError, attempt: number, maxRetries: number): boolean {
    if (attempt >= maxRetries || (error.status !== 429 && error.status !== 503)) return false;
    return (error.retryAfter ?? 1) <= (this.options.maxRetryAfterSeconds ?? 120);
  }

  private send(request: RequestOptions): Promise<Response> {
    const url = new URL(`${this.baseUrl}${request.path}`);
    for (const [name, value] of Object.entries(request.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    const headers: Record<string, string> = { authorization: `Bearer ${this.options.token}`, accept: 'application/json' };
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    if (request.idempotencyKey !== undefined) headers['idempotency-key'] = request.idempotencyKey;
    return this.fetch(url, {
      method: request.method,
      headers,
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
    });
  }
}
