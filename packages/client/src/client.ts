import { randomUUID } from 'node:crypto';
import { retryAfterSeconds } from './errors.js';
import { Transport, type ClientOptions } from './http.js';
import type {
  Change,
  ChangeDetail,
  ChangeQuery,
  Channel,
  ChannelCreate,
  ChannelDelivery,
  ChannelTestResult,
  CreatedFeedToken,
  Secret,
  FeedToken,
  FeedTokenCreate,
  CheckHistoryQuery,
  CheckRun,
  Monitor,
  MonitorCreate,
  MonitorQuery,
  MonitorUpdate,
  Preview,
  PreviewCreate,
  Receipt,
  Step,
  Target,
  TargetResult,
  Usage,
} from './types.js';

type Data<T> = { data: T };
type Page<T> = { data: T[]; meta: { next_cursor: string | null } };

export interface WriteOptions {
  /** default a fresh random key; pass your own to make a retry after a crash replay the first result */
  idempotencyKey?: string;
}

export interface Created<T> {
  data: T;
  /** the resource's address, from Location */
  location: string | null;
  /** true when the server replayed a retained result for this Idempotency-Key */
  replayed: boolean;
}

export interface WaitOptions {
  /** give up after this long; default 35 minutes (a queued check expires after 30) */
  timeoutMs?: number;
}

const TERMINAL = new Set(['succeeded', 'failed', 'cancelled', 'expired']);
const newKey = () => `client-${randomUUID()}`;
const enc = encodeURIComponent;

/** A client of the pagewatch public API v1. */
export class PagewatchClient {
  private readonly http: Transport;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly now: () => number;

  constructor(options: ClientOptions & { now?: () => number }) {
    this.http = new Transport(options);
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.now = options.now ?? Date.now;
  }

  /** Every item of a list, page after page, following meta.next_cursor with the same filters. */
  private async *pages<T>(path: string, query: Record<string, string | number | boolean | undefined>): AsyncGenerator<T> {
    let cursor: string | undefined;
    do {
      const page = (await this.http.request<Page<T>>({ method: 'GET', path, query: { ...query, cursor } })).body;
      yield* page.data;
      cursor = page.meta.next_cursor ?? undefined;
    } while (cursor !== undefined);
  }

  private async created<T>(path: string, body: unknown, options: WriteOptions): Promise<Created<T>> {
    const res = await this.http.request<Data<T>>({ method: 'POST', path, body, idempotencyKey: options.idempotencyKey ?? newKey() });
    return { data: res.body.data, location: res.headers.get('location'), replayed: res.headers.get('idempotency-replayed') === 'true' };
  }

  readonly monitors = {
    /** All monitors matching the filters, newest first (`for await … of`). */
    list: (query: MonitorQuery = {}): AsyncGenerator<Monitor> => this.pages<Monitor>('/monitors', query),
    get: async (id: string): Promise<Monitor> =>
      (await this.http.request<Data<Monitor>>({ method: 'GET', path: `/monitors/${enc(id)}` })).body.data,
    /** Creates a monitor from a preview; safe to retry: it carries an Idempotency-Key. */
    create: (body: MonitorCreate, options: WriteOptions = {}): Promise<Created<{ id: string }>> => this.created('/monitors', body, options),
    update: async (id: string, body: MonitorUpdate): Promise<Monitor> =>
      (await this.http.request<Data<Monitor>>({ method: 'PATCH', path: `/monitors/${enc(id)}`, body, retry: false })).body.data,
    delete: async (id: string): Promise<void> => {
      await this.http.request({ method: 'DELETE', path: `/monitors/${enc(id)}` });
    },
  };

  readonly previews = {
    /** Loads a preview (up to 60 s, one credit). Never retried on its own: a retry may cost another credit. */
    create: async (body: PreviewCreate): Promise<Preview> =>
      (await this.http.request<Data<Preview>>({ method: 'POST', path: '/previews', body, retry: false })).body.data,
    /** Reads targets from a preview's page, loading nothing; `steps`, when given, must be those the preview ran. */
    evaluate: async (previewId: string, targets: Target[], steps?: Step[]): Promise<TargetResult[]> =>
      (
        await this.http.request<Data<{ targets: TargetResult[] }>>({
          method: 'POST',
          path: `/previews/${enc(previewId)}/evaluate`,
          body: steps === undefined ? { targets } : { targets, steps },
        })
      ).body.data.targets,
  };

  readonly changes = {
    /** All retained changes matching the filters, newest first; deduplicate ids across traversals. */
    list: (query: ChangeQuery = {}): AsyncGenerator<Change> => this.pages<Change>('/changes', query),
    get: async (id: string): Promise<ChangeDetail> =>
      (await this.http.request<Data<ChangeDetail>>({ method: 'GET', path: `/changes/${enc(id)}` })).body.data,
  };

  readonly checks = {
    /** Queues a manual check (202); a repeat with the same key replays the receipt. */
    request: (monitorId: string, options: WriteOptions = {}): Promise<Created<Receipt>> =>
      this.created(`/monitors/${enc(monitorId)}/checks`, {}, options),
    get: async (checkId: string): Promise<Receipt> =>
      (await this.http.request<Data<Receipt>>({ method: 'GET', path: `/checks/${enc(checkId)}` })).body.data,
    /** Every check of the monitor the server still keeps (scheduled and manual), newest first, page after page. */
    history: (monitorId: string, query: CheckHistoryQuery = {}): AsyncGenerator<CheckRun> =>
      this.pages<CheckRun>(`/monitors/${enc(monitorId)}/checks`, query),
    /** Polls the receipt, as often as its Retry-After allows (60 s), until it is terminal. */
    wait: async (checkId: string, options: WaitOptions = {}): Promise<Receipt> => {
      const deadline = this.now() + (options.timeoutMs ?? 35 * 60_000);
      for (;;) {
        const res = await this.http.request<Data<Receipt>>({ method: 'GET', path: `/checks/${enc(checkId)}` });
        if (TERMINAL.has(res.body.data.status)) return res.body.data;
        const waitMs = (retryAfterSeconds(res.headers) ?? 60) * 1000;
        if (this.now() + waitMs > deadline) throw new Error(`check ${checkId} is still ${res.body.data.status} after the timeout`);
        await this.sleep(waitMs);
      }
    },
  };

  readonly feedTokens = {
    /** Makes a feed token; its secret and feed_url are in this answer only. Not retried: a retry would make a second token. */
    create: async (body: FeedTokenCreate): Promise<CreatedFeedToken> =>
      (await this.http.request<Data<CreatedFeedToken>>({ method: 'POST', path: '/feed-tokens', body, retry: false })).body.data,
    list: async (): Promise<FeedToken[]> => (await this.http.request<Data<FeedToken[]>>({ method: 'GET', path: '/feed-tokens' })).body.data,
    revoke: async (id: string): Promise<void> => {
      await this.http.request({ method: 'DELETE', path: `/feed-tokens/${enc(id)}` });
    },
  };

  readonly channels = {
    /** Makes a channel from an Apprise-style URL; the answer shows it masked. Not retried: a retry would make a second channel. */
    create: async (body: ChannelCreate): Promise<Channel> =>
      (await this.http.request<Data<Channel>>({ method: 'POST', path: '/channels', body, retry: false })).body.data,
    list: async (): Promise<Channel[]> => (await this.http.request<Data<Channel[]>>({ method: 'GET', path: '/channels' })).body.data,
    get: async (id: string): Promise<Channel> =>
      (await this.http.request<Data<Channel>>({ method: 'GET', path: `/channels/${enc(id)}` })).body.data,
    delete: async (id: string): Promise<void> => {
      await this.http.request({ method: 'DELETE', path: `/channels/${enc(id)}` });
    },
    /** Sends a test message now; the answer is what the service said. Not retried: each call is a message. */
    test: async (id: string): Promise<ChannelTestResult> =>
      (await this.http.request<Data<ChannelTestResult>>({ method: 'POST', path: `/channels/${enc(id)}/test`, body: {}, retry: false })).body
        .data,
    deliveries: async (id: string): Promise<ChannelDelivery[]> =>
      (await this.http.request<Data<ChannelDelivery[]>>({ method: 'GET', path: `/channels/${enc(id)}/deliveries` })).body.data,
  };

  readonly secrets = {
    /** Stores a secret for type steps to name, or replaces its value (write-only: no answer shows it again). */
    put: async (name: string, value: string): Promise<Secret> =>
      (await this.http.request<Data<Secret>>({ method: 'PUT', path: `/secrets/${enc(name)}`, body: { value } })).body.data,
    /** The account's secrets by name, never their values. */
    list: async (): Promise<Secret[]> => (await this.http.request<Data<Secret[]>>({ method: 'GET', path: '/secrets' })).body.data,
    /** Refused (409 secret_in_use, naming them) while a monitor's steps type it. */
    delete: async (name: string): Promise<void> => {
      await this.http.request({ method: 'DELETE', path: `/secrets/${enc(name)}` });
    },
  };

  async usage(): Promise<Usage> {
    return (await this.http.request<Data<Usage>>({ method: 'GET', path: '/usage' })).body.data;
  }
}
