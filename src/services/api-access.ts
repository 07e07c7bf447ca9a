import { AppError } from '../errors.ts';
import type { Database } from '../store/database.ts';
import type { ApiStatus } from '../store/api-status-store.ts';
import { findTokenWithApiStatus, type TokenWithAccount } from '../store/tokens-store.ts';

// What every API request needs before anything else — the API status and the
// caller's token with its account's plan — kept in this process, so a request
// costs no query for them. Entries are dropped at once when this process makes
// a change (the services call invalidate*), and within a round trip when any
// process does: migration 010's triggers announce every change on
// ACCESS_CHANNEL. A short time-to-live bounds staleness should an announcement
// ever be missed; a lost listening connection empties the cache.

export const ACCESS_CHANNEL = 'pagewatch_api_access';

export interface ApiAccessOptions {
  /** tokens kept, least recently used dropped first */
  maxTokens?: number;
  /** how long an entry is trusted without an announcement, in ms */
  ttlMs?: number;
  /** monotonic milliseconds (not the app clock: tests move that one by days) */
  monotonicNow?: () => number;
}

interface Entry<T> {
  value: T;
  loadedAt: number;
}

export class ApiAccess {
  private readonly tokens = new Map<string, Entry<TokenWithAccount>>();
  private apiStatus: Entry<ApiStatus> | null = null;
  /** lookups under way by hash ('' for none): requests arriving together when an entry runs out share one query */
  private readonly inflight = new Map<string, Promise<{ status: ApiStatus; token: TokenWithAccount | null }>>();
  /** bumped by every invalidation, so a lookup that raced one does not store what it read before it */
  private generation = 0;
  private unlisten: (() => Promise<void>) | null = null;
  /** announcements name the schema of the changed table: this process's tables are in this one */
  private schema = '';
  private readonly maxTokens: number;
  private readonly ttlMs: number;
  private readonly monotonicNow: () => number;

  constructor(
    private readonly db: Database,
    options: ApiAccessOptions = {},
  ) {
    this.maxTokens = options.maxTokens ?? 10_000;
    this.ttlMs = options.ttlMs ?? 5_000;
    this.monotonicNow = options.monotonicNow ?? (() => performance.now());
  }

  async start(): Promise<void> {
    const [row] = await this.db.query<{ schema: string }>('SELECT current_schema() AS schema');
    if (row === undefined) throw new AppError('internal_error', 'current_schema() returned no row');
    this.schema = row.schema;
    this.unlisten = await this.db.listen(
      ACCESS_CHANNEL,
      (payload) => this.onAnnouncement(payload),
      () => this.clear(),
    );
  }

  async stop(): Promise<void> {
    await this.unlisten?.();
    this.unlisten = null;
    this.clear();
  }

  /** The API status and the token with this hash (null: none, or hash is null), from the cache or one query. */
  async lookup(hash: string | null): Promise<{ status: ApiStatus; token: TokenWithAccount | null }> {
    const now = this.monotonicNow();
    const status = this.fresh(this.apiStatus, now);
    const token = hash === null ? null : this.fresh(this.tokens.get(hash), now);
    if (status && (hash === null || token)) {
      if (hash !== null && token) this.touchRecency(hash);
      return { status: status.value, token: token?.value ?? null };
    }
    const key = hash ?? '';
    let pending = this.inflight.get(key);
    if (!pending) {
      const loading: Promise<{ status: ApiStatus; token: TokenWithAccount | null }> = this.load(hash, now).finally(() => {
        if (this.inflight.get(key) === loading) this.inflight.delete(key);
      });
      this.inflight.set(key, loading);
      pending = loading;
    }
    return pending;
  }

  private async load(hash: string | null, now: number): Promise<{ status: ApiStatus; token: TokenWithAccount | null }> {
    const generation = this.generation;
    const found = await findTokenWithApiStatus(this.db, hash);
    if (generation === this.generation) {
      this.apiStatus = { value: found.status, loadedAt: now };
      // Unknown tokens are not kept: a made-up token must not evict real ones.
      if (hash !== null && found.token) this.remember(hash, { value: found.token, loadedAt: now });
    }
    return found;
  }

  /** Records that this process wrote the token's last_used_at. */
  noteUsed(hash: string, at: Date): void {
    const entry = this.tokens.get(hash);
    if (entry) entry.value = { ...entry.value, last_used_at: at };
  }

  // Each invalidation also forgets the lookups under way, which may have read
  // what was there before: requests after it query afresh.
  invalidateAccount(accountId: string): void {
    this.generation++;
    this.inflight.clear();
    for (const [hash, entry] of this.tokens) if (entry.value.account_id === accountId) this.tokens.delete(hash);
  }

  invalidateStatus(): void {
    this.generation++;
    this.inflight.clear();
    this.apiStatus = null;
  }

  clear(): void {
    this.generation++;
    this.inflight.clear();
    this.tokens.clear();
    this.apiStatus = null;
  }

  private onAnnouncement(payload: string): void {
    const space = payload.lastIndexOf(' ');
    if (payload.slice(0, space) !== this.schema) return;
    const change = payload.slice(space + 1);
    if (change === 'status') this.invalidateStatus();
    else if (change.startsWith('account:')) this.invalidateAccount(change.slice('account:'.length));
    else this.clear();
  }

  private fresh<T>(entry: Entry<T> | null | undefined, now: number): Entry<T> | null {
    return entry && now - entry.loadedAt < this.ttlMs ? entry : null;
  }

  private touchRecency(hash: string): void {
    const entry = this.tokens.get(hash)!;
    this.tokens.delete(hash);
    this.tokens.set(hash, entry);
  }

  private remember(hash: string, entry: Entry<TokenWithAccount>): void {
    this.tokens.delete(hash);
    this.tokens.set(hash, entry);
    if (this.tokens.size > this.maxTokens) this.tokens.delete(this.tokens.keys().next().value!);
  }
}
