import { createHash } from 'node:crypto';
import type { Clock } from '../clock.ts';
import { AppError } from '../errors.ts';
import type { AtomEntry } from '../domain/atom-feed.ts';
import { isPlanName, type Plans } from '../domain/plans.ts';
import type { Loaders } from '../fetch/loaders.ts';
import type { Database } from '../store/database.ts';
import { accountHasMonitor, countFeedRead, findFeedToken, listFeedChanges, type FeedChangeRow } from '../store/feed-tokens-store.ts';
import { changeDiffs } from './change-diffs.ts';
import { looksLikeFeedToken, hashTokenSecret, sameHash } from './token-secrets.ts';

// Reading an Atom feed (DESIGN §8 Feeds): the token in the URL says whose
// changes and which; the URL may narrow them to a label or a monitor. The
// ETag is computed from what the entries are made of before any diff is read,
// so a reader whose copy is current costs one small query.

export const FEED_ENTRIES = 50;
const HOUR_SECONDS = 3600;
const DAY_MS = 86_400_000;
const TITLE_CHARS = 200;

export interface FeedDeps {
  db: Database;
  clock: Clock;
  config: { plans: Plans; publicUrl: string };
  /** diffs and the document (its escaping of up to 50 diffs) are made in the extraction threads, off the event loop */
  loaders: Pick<Loaders, 'extraction'>;
}

export interface FeedRequest {
  token: string;
  /** the URL's narrowing: a label or a monitor (or neither) */
  label?: string;
  monitorId?: string;
  /** the request's own path, the feed's rel="self" */
  path: string;
  ifNoneMatch: string | undefined;
}

export type FeedAnswer = { status: 304; etag: string } | { status: 200; etag: string; body: string };

const NOT_FOUND = 'no such feed (the token is unknown or revoked)';

function matchesEtag(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t.replace(/^W\//, '') === etag;
  });
}

function shorten(text: string): string {
  return text.length > TITLE_CHARS ? `${text.slice(0, TITLE_CHARS - 1)}…` : text;
}

function entryTitle(row: FeedChangeRow): string {
  const what = `${row.before_display ?? '(none)'} → ${row.after_display ?? '(none)'}`;
  return shorten(`${row.monitor_name ?? row.monitor_url} · ${row.target_id}: ${what}`);
}

export async function readFeed(deps: FeedDeps, request: FeedRequest): Promise<FeedAnswer> {
  const hash = looksLikeFeedToken(request.token) ? hashTokenSecret(request.token) : null;
  const token = hash === null ? null : await findFeedToken(deps.db, hash);
  if (!token || !hash || !sameHash(token.token_hash, hash) || token.revoked_at || !isPlanName(token.plan)) {
    throw new AppError('not_found', NOT_FOUND);
  }
  const plan = deps.config.plans[token.plan];
  if (plan.feed_tokens === 0) throw new AppError('pro_required', 'Atom feeds require the Pro plan');
  const now = deps.clock.now();
  const reads = await countFeedRead(deps.db, token.id, now, HOUR_SECONDS);
  if (reads.count > plan.feed_reads_per_hour) {
    const retryAfter = Math.max(1, Math.ceil((reads.windowStart.getTime() + HOUR_SECONDS * 1000 - now.getTime()) / 1000));
    throw new AppError('rate_limited', `at most ${plan.feed_reads_per_hour} reads of a feed per hour`, { retryAfter });
  }
  if (request.monitorId !== undefined && !(await accountHasMonitor(deps.db, token.account_id, request.monitorId))) {
    throw new AppError('not_found', 'no such monitor');
  }
  const labels = [token.label, request.label].filter((l): l is string => l !== null && l !== undefined);
  const monitorIds = [token.monitor_id, request.monitorId].filter((m): m is string => m !== null && m !== undefined);
  const rows = await listFeedChanges(
    deps.db,
    { accountId: token.account_id, retainedAfter: new Date(now.getTime() - plan.retention_days * DAY_MS), labels, monitorIds },
    FEED_ENTRIES,
  );
  const feedId = [
    'urn:pagewatch:feed',
    token.id,
    ...labels.map((l) => `label:${encodeURIComponent(l)}`),
    ...monitorIds.map((m) => `monitor:${m}`),
  ].join(':');
  const etag = `"${createHash('sha256')
    .update(JSON.stringify([feedId, rows.map((r) => [r.id, r.monitor_name, r.monitor_url])]))
    .digest('base64url')}"`;
  if (matchesEtag(request.ifNoneMatch, etag)) return { status: 304, etag };

  const diffs = await changeDiffs(
    { db: deps.db, extraction: deps.loaders.extraction, ticket: { account: token.account_id, lane: 'check' } },
    rows,
  );
  const entries: AtomEntry[] = rows.map((row) => {
    const diff = diffs.get(row.id)?.unified ?? '';
    return {
      id: `urn:uuid:${row.id}`,
      title: entryTitle(row),
      updated: row.detected_at,
      link: `${deps.config.publicUrl}/changes/${row.id}`,
      content: diff === '' ? entryTitle(row) : diff,
    };
  });
  const narrowing = [...(request.label ? [`label ${request.label}`] : []), ...(request.monitorId ? [`monitor ${request.monitorId}`] : [])];
  const body = await deps.loaders.extraction.atom(
    {
      id: feedId,
      title: [`pagewatch: ${token.name}`, ...narrowing].join(' · '),
      self: `${deps.config.publicUrl}${request.path}`,
      updated: rows[0]?.detected_at ?? token.created_at,
      author: 'pagewatch',
      entries,
    },
    { account: token.account_id, lane: 'interactive' },
  );
  return { status: 200, etag, body };
}
