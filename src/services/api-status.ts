import type { Database } from '../store/database.ts';
import { readApiStatus, writeApiStatus, type ApiStatus } from '../store/api-status-store.ts';

// The operator's switch that closes the public API (503 with Retry-After).

export function getApiStatus(db: Database): Promise<ApiStatus> {
  return readApiStatus(db);
}

/** Opens or closes the API; the Retry-After given while closed is kept unless a new one is named. */
export async function setApiStatus(db: Database, input: { open: boolean; retry_after_seconds?: number }): Promise<ApiStatus> {
  const current = await readApiStatus(db);
  const next = { open: input.open, retry_after_seconds: input.retry_after_seconds ?? current.retry_after_seconds };
  await writeApiStatus(db, next);
  return next;
}
