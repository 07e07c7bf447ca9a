import { AppError } from '../errors.ts';
import type { Queryable } from './database.ts';

export interface ApiStatus {
  open: boolean;
  retry_after_seconds: number;
}

export async function readApiStatus(db: Queryable): Promise<ApiStatus> {
  const rows = await db.query<ApiStatus>('SELECT open, retry_after_seconds FROM api_status WHERE id = 1');
  const [status] = rows;
  if (status === undefined) throw new AppError('internal_error', 'the api_status row is missing');
  return status;
}

export async function writeApiStatus(db: Queryable, status: ApiStatus): Promise<void> {
  await db.query('UPDATE api_status SET open = $1, retry_after_seconds = $2 WHERE id = 1', [status.open, status.retry_after_seconds]);
}
