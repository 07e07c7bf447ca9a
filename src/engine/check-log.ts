import type { WorkItem } from '../store/procedures/claim-work.ts';
import type { RecordedCheck } from '../store/procedures/commit-checks.ts';
import type { EngineLogger } from './engine-logger.ts';

// What the engine says at `info` about a recorded check: one line for the
// check, one per change it recorded, and one when the monitor starts failing
// or recovers; each with the ids an operator looks up next.

export function logRecordedCheck(
  logger: Pick<EngineLogger, 'info'>,
  item: Pick<WorkItem, 'accountId' | 'monitorId' | 'manualCheckId'>,
  check: RecordedCheck,
): void {
  const ids = { account_id: item.accountId, monitor_id: item.monitorId, check_id: check.checkId };
  logger.info(
    {
      ...ids,
      ...(item.manualCheckId === null ? {} : { manual_check_id: item.manualCheckId }),
      outcome: check.result,
      http_status: check.httpStatus,
      issues: check.issues.map((i) => i.code),
      changes: check.changes.length,
    },
    'check completed',
  );
  for (const changeId of check.changes) logger.info({ ...ids, change_id: changeId }, 'change recorded');
  const { transition } = check;
  if (transition?.event === 'monitor.failing') {
    logger.info(
      { ...ids, failing_since: transition.failingSince, consecutive_failures: transition.consecutiveFailures },
      'monitor failing',
    );
  } else if (transition?.event === 'monitor.recovered') {
    logger.info({ ...ids, failing_since: transition.failingSince }, 'monitor recovered');
  }
}
