import { Type } from '@sinclair/typebox';
import { CHECK_STATUSES } from '../domain/manual-check.ts';
import { NullableTimestamp, Timestamp } from './common.ts';
import { CheckIssueSchema } from './previews.ts';

export const ReceiptSchema = Type.Object({
  check_id: Type.String({ format: 'uuid' }),
  monitor_id: Type.String({ format: 'uuid' }),
  status: Type.Union(
    CHECK_STATUSES.map((s) => Type.Literal(s)),
    {
      description:
        'queued: accepted, waiting for a worker (expires after 30 minutes); running: claimed, check allowance reserved (may include browser queue wait); ' +
        'succeeded, failed, cancelled, expired: final',
    },
  ),
  requested_at: Timestamp,
  started_at: NullableTimestamp,
  finished_at: NullableTimestamp,
  changes: Type.Array(Type.String({ format: 'uuid' }), { description: 'ids of the changes this check recorded (GET /changes/{id})' }),
  issues: Type.Array(CheckIssueSchema),
});

export const CheckRunSchema = Type.Object({
  checked_at: Timestamp,
  duration_ms: Type.Integer({ description: 'from the start of the page load to the recorded result' }),
  outcome: Type.Union([Type.Literal('ok'), Type.Literal('issues'), Type.Literal('failed'), Type.Literal('not_modified')], {
    description:
      'ok: every target was read; issues: the page loaded but a target could not be read; failed: the page did not load; ' +
      'not_modified: the site answered 304 to a conditional request, so the page is the one read last time and nothing changed',
  }),
  http_status: Type.Union([Type.Integer(), Type.Null()]),
  manual_check_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], { description: 'the receipt, when the check was requested' }),
  issues: Type.Array(CheckIssueSchema),
  changes: Type.Array(Type.String({ format: 'uuid' }), { description: 'ids of the changes this check recorded' }),
});

export const RequestCheckBody = Type.Object({}, { additionalProperties: false, description: 'an empty object' });
export const CheckParams = Type.Object({ check_id: Type.String({ format: 'uuid' }) });
