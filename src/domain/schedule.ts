// Scheduling arithmetic; the scheduler supplies the clock.
//
// Every monitor has its own phase: with an interval of P seconds and a stable
// offset o in [0, P), its check slots are the instants o + k·P seconds after
// the Unix epoch (k an integer). Monitors with the same interval therefore
// fire at different seconds, spread evenly by a hash of their ids, and each
// monitor keeps its rhythm across restarts.

const MS_PER_SECOND = 1000;
const SECONDS_PER_MINUTE = 60;

/** A new monitor's first capture happens within this many seconds. */
export const INITIAL_SPREAD_SECONDS = 60;

/** First per-host backoff, one scheduler cycle. */
export const BACKOFF_INITIAL_SECONDS = 60;
/** Longest backoff reached by doubling alone. */
export const BACKOFF_MAX_SECONDS = 3600;
/** Longest Retry-After honoured, so that a site cannot stop checks for days. */
export const RETRY_AFTER_MAX_SECONDS = 24 * 3600;

/**
 * The monitor's phase within its interval, in whole seconds in
 * [0, intervalMinutes·60): a hash of the id, so it is the same on every node
 * and every run. It changes when the interval changes.
 */
export function stableOffsetSeconds(monitorId: string, intervalMinutes: number): number {
  return hash32(monitorId) % periodSeconds(intervalMinutes);
}

/**
 * The monitor's next slot: the first instant o + k·P strictly after both
 * `previousDueAt` (the due time just served, or the creation time) and `now`.
 *
 * In normal operation that is previousDueAt + P. When the check ran late or
 * the service was down, missed slots are skipped rather than made up: the
 * monitor is next due at its own next slot in the future, so after a downtime
 * overdue monitors come back spread over their interval, each on its phase,
 * instead of all at once. A scheduler that finds a stored due time more than
 * a cycle in the past re-places it with this same function.
 */
export function nextDueAt(previousDueAt: Date, intervalMinutes: number, offsetSeconds: number, now: Date): Date {
  const periodMs = periodSeconds(intervalMinutes) * MS_PER_SECOND;
  const offsetMs = offsetSeconds * MS_PER_SECOND;
  const after = Math.max(previousDueAt.getTime(), now.getTime());
  const slot = Math.floor((after - offsetMs) / periodMs) + 1;
  return new Date(offsetMs + slot * periodMs);
}

/**
 * The monitor's next slot after a capture at `capturedAt`. A capture that
 * served one of the monitor's own slots keeps its rhythm (nextDueAt from that
 * slot). Any other capture (the seeding capture, a manual check, a capture
 * after a resume or an interval change, a confirmation re-check) is followed
 * by the first own slot at or after `capturedAt` plus the interval, so that
 * the next scheduled capture is never sooner than the interval after it.
 */
export function nextDueAfterCapture(servedSlot: Date | null, capturedAt: Date, intervalMinutes: number, offsetSeconds: number): Date {
  const periodMs = periodSeconds(intervalMinutes) * MS_PER_SECOND;
  if (servedSlot !== null && isOwnSlot(servedSlot, periodMs, offsetSeconds)) {
    return nextDueAt(servedSlot, intervalMinutes, offsetSeconds, capturedAt);
  }
  return slotAtOrAfter(new Date(capturedAt.getTime() + periodMs), intervalMinutes, offsetSeconds);
}

/**
 * Whether a due slot must wait because the monitor's previous capture came
 * late to its own slot (a busy worker, a slow cycle) and an interval has not
 * passed since. The slot is then served once it has, and the rhythm stays on
 * the monitor's slots. A confirmation re-check is not on one of the
 * monitor's own slots and never waits.
 */
export function slotWaitsForInterval(
  slot: Date,
  lastCapturedAt: Date | null,
  intervalMinutes: number,
  offsetSeconds: number,
  now: Date,
): boolean {
  if (lastCapturedAt === null) return false;
  const periodMs = periodSeconds(intervalMinutes) * MS_PER_SECOND;
  return isOwnSlot(slot, periodMs, offsetSeconds) && now.getTime() < lastCapturedAt.getTime() + periodMs;
}

/**
 * When a monitor that was resumed or given a new interval is next due: soon
 * (initialDueAt), unless its last capture was less than an interval before;
 * then its first own slot at or after that capture plus the interval.
 */
export function dueAfterReconfiguring(monitorId: string, now: Date, lastCapturedAt: Date | null, intervalMinutes: number): Date {
  const soon = initialDueAt(monitorId, now);
  if (lastCapturedAt === null) return soon;
  const earliest = new Date(lastCapturedAt.getTime() + periodSeconds(intervalMinutes) * MS_PER_SECOND);
  if (earliest <= soon) return soon;
  return slotAtOrAfter(earliest, intervalMinutes, stableOffsetSeconds(monitorId, intervalMinutes));
}

function slotAtOrAfter(at: Date, intervalMinutes: number, offsetSeconds: number): Date {
  return nextDueAt(new Date(at.getTime() - 1), intervalMinutes, offsetSeconds, new Date(at.getTime() - 1));
}

function isOwnSlot(at: Date, periodMs: number, offsetSeconds: number): boolean {
  const phase = (at.getTime() - offsetSeconds * MS_PER_SECOND) % periodMs;
  return phase === 0;
}

/**
 * A new monitor's first due time: soon (the spec's first capture seeds the
 * baseline), spread over the next INITIAL_SPREAD_SECONDS by the id's hash so
 * that monitors created together are not fetched together. Later checks
 * follow nextDueAt on the monitor's phase.
 */
export function initialDueAt(monitorId: string, now: Date): Date {
  // A different hash input from the offset's, so that the two spreads are
  // independent of each other.
  const delaySeconds = hash32(`initial:${monitorId}`) % INITIAL_SPREAD_SECONDS;
  return new Date(now.getTime() + delaySeconds * MS_PER_SECOND);
}

/**
 * Seconds to leave a host alone after it failed or throttled us again:
 * BACKOFF_INITIAL_SECONDS the first time, then double the previous backoff up
 * to BACKOFF_MAX_SECONDS; never less than the host's Retry-After (itself
 * capped at RETRY_AFTER_MAX_SECONDS). Invalid Retry-After values are ignored.
 */
export function nextBackoff(previousSeconds: number | null, retryAfterSeconds: number | null): number {
  const doubled =
    previousSeconds === null || !(previousSeconds > 0)
      ? BACKOFF_INITIAL_SECONDS
      : Math.min(Math.max(previousSeconds * 2, BACKOFF_INITIAL_SECONDS), BACKOFF_MAX_SECONDS);
  const asked =
    retryAfterSeconds !== null && Number.isFinite(retryAfterSeconds) && retryAfterSeconds > 0
      ? Math.min(Math.ceil(retryAfterSeconds), RETRY_AFTER_MAX_SECONDS)
      : 0;
  return Math.max(doubled, asked);
}

function periodSeconds(intervalMinutes: number): number {
  if (!Number.isInteger(intervalMinutes) || intervalMinutes < 1) {
    throw new RangeError(`interval must be a whole number of minutes, at least 1: ${intervalMinutes}`);
  }
  return intervalMinutes * SECONDS_PER_MINUTE;
}

// FNV-1a over the UTF-8 bytes, then MurmurHash3's finaliser so that the low
// bits (which the modulo keeps) depend on every input byte.
export function hash32(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193);
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}
