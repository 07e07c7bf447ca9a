import { Type } from '@sinclair/typebox';
import { TargetListSchema, TargetSchema } from '../domain/targets.ts';
import { StepListSchema, StepSchema } from '../domain/steps.ts';
import { IDEMPOTENCY_KEY_PATTERN, MAX_CURSOR_LENGTH, NullableTimestamp, Timestamp } from './common.ts';
import { CheckIssueSchema, LoadModeSchema, ProxyName } from './previews.ts';
import { EmailModeSchema } from './admin.ts';
import { WEEKDAYS } from '../domain/monitor-schedule.ts';

const MonitorEmailMode = Type.Union([EmailModeSchema, Type.Null()], {
  description: "each (one email per check), daily or weekly (one digest of the period); null: the account's email_mode (the default)",
});

export const NotificationsInputSchema = Type.Object(
  {
    email_enabled: Type.Optional(Type.Boolean({ description: 'email the account on matched changes; default true' })),
    email_mode: Type.Optional(MonitorEmailMode),
    webhook_enabled: Type.Optional(
      Type.Boolean({ description: "post matched changes to the account's webhook (configured by the operator); default false" }),
    ),
    channels: Type.Optional(
      Type.Array(Type.String({ format: 'uuid' }), {
        maxItems: 50,
        uniqueItems: true,
        description: "ids of the account's channels (/channels) that get this monitor's changes and failing/recovered alerts; default none",
      }),
    ),
    failing_after: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100,
        description:
          'after this many failed checks in a row (the page did not load, or a target could not be read) one monitor.failing is sent, ' +
          'and one monitor.recovered when a check succeeds again; default 3',
      }),
    ),
  },
  { additionalProperties: false },
);

const Name = Type.String({ minLength: 1, maxLength: 200 });
const Label = Type.String({ minLength: 1, maxLength: 50 });
const Labels = Type.Array(Label, {
  maxItems: 20,
  uniqueItems: true,
  description: 'free-form tags, e.g. "shop" or "competitor"; filter lists with ?label=',
});
const Interval = Type.Integer({
  minimum: 1,
  maximum: 10080,
  description: 'minutes between checks; at least 5 (html) or 15 (browser) on Pro',
});
export const ScheduleSchema = Type.Object(
  {
    timezone: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'IANA time zone the days, hours and cron are read in, e.g. Europe/Berlin',
    }),
    days: Type.Optional(
      Type.Array(Type.Union(WEEKDAYS.map((day) => Type.Literal(day))), {
        minItems: 1,
        maxItems: 7,
        uniqueItems: true,
        description: 'days checks run on (a night window belongs to the day it begins); default every day',
      }),
    ),
    hours: Type.Optional(
      Type.Object(
        {
          from: Type.Integer({ minimum: 0, maximum: 23, description: 'first active hour' }),
          to: Type.Integer({
            minimum: 1,
            maximum: 24,
            description: 'the hour checks stop (exclusive); at or before from: the window runs past midnight',
          }),
        },
        { additionalProperties: false, description: 'active hours, whole hours of the local clock; default the whole day' },
      ),
    ),
    cron: Type.Optional(
      Type.String({
        minLength: 9,
        maxLength: 120,
        description:
          "5-field cron expression (minute hour day month weekday) instead of days and hours; its occurrences at least the plan's minimum interval apart",
      }),
    ),
    jitter_seconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 3600,
        description: 'each check moves by a stable 0 to this many seconds; less than the interval',
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      'when checks run: every interval_minutes within active days and hours, or at the cron occurrences (never sooner than interval_minutes after the previous check); absent or null: every interval_minutes, around the clock',
  },
);
const PreviewId = Type.String({ format: 'uuid', description: 'a valid preview of this account (POST /previews), at most 15 minutes old' });

export const CreateMonitorBody = Type.Object(
  {
    preview_id: PreviewId,
    targets: TargetListSchema,
    steps: Type.Optional({
      ...StepListSchema,
      description: `${StepListSchema.description} Default none; the preview must have been loaded with the same steps, all of them ok`,
    }),
    name: Type.Optional(Name),
    labels: Type.Optional(Labels),
    interval_minutes: Interval,
    schedule: Type.Optional(ScheduleSchema),
    notifications: Type.Optional(NotificationsInputSchema),
    proxy: Type.Optional(ProxyName),
    status: Type.Optional(
      Type.Union([Type.Literal('active'), Type.Literal('paused')], {
        description: 'default active; paused: created with no check due until it is resumed (an import carries a paused monitor whole)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const UpdateMonitorBody = Type.Object(
  {
    preview_id: Type.Optional(PreviewId),
    targets: Type.Optional(TargetListSchema),
    steps: Type.Optional({
      ...StepListSchema,
      description:
        'a new step list ([] removes them); like targets it needs preview_id (loaded with these steps, all ok) and expected_version',
    }),
    name: Type.Optional(Type.Union([Name, Type.Null()], { description: 'null removes the name' })),
    labels: Type.Optional(Labels),
    interval_minutes: Type.Optional(Interval),
    schedule: Type.Optional(Type.Union([ScheduleSchema, Type.Null()], { description: 'null removes the schedule' })),
    notifications: Type.Optional(NotificationsInputSchema),
    status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('paused')])),
    proxy: Type.Optional(
      Type.Union([ProxyName, Type.Null()], { description: 'load through this proxy from the next check; null: directly' }),
    ),
    expected_version: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: 'the current config_version; required with preview_id, targets, steps, interval_minutes or schedule',
      }),
    ),
  },
  { additionalProperties: false },
);

export const MonitorSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  url: Type.String({ description: 'fixed for the life of the monitor' }),
  load_mode: LoadModeSchema,
  proxy: Type.Union([Type.String(), Type.Null()], { description: "the operator's outbound proxy its checks go through; null: directly" }),
  status: Type.Union([Type.Literal('active'), Type.Literal('paused')]),
  name: Type.Union([Type.String(), Type.Null()]),
  labels: Type.Array(Type.String()),
  interval_minutes: Type.Integer(),
  schedule: Type.Union([ScheduleSchema, Type.Null()]),
  targets: Type.Array(TargetSchema),
  steps: Type.Array(StepSchema, { description: 'browser mode: the steps run before the page is read' }),
  notifications: Type.Object({
    email_enabled: Type.Boolean(),
    email_mode: MonitorEmailMode,
    webhook_enabled: Type.Boolean(),
    channels: Type.Array(Type.String({ format: 'uuid' })),
    failing_after: Type.Integer(),
  }),
  config_version: Type.Integer({ description: 'pass as expected_version when changing targets, load method or schedule' }),
  created_at: Timestamp,
  updated_at: Timestamp,
  last_checked_at: NullableTimestamp,
  next_check_at: NullableTimestamp,
  last_change_at: NullableTimestamp,
  last_issues: Type.Array(CheckIssueSchema, { description: "the latest capture's check issues" }),
  failing_since: Type.Union([Timestamp, Type.Null()], {
    description: 'since when the checks have been failing (notifications.failing_after failed checks in a row); null while they succeed',
  }),
});

export const ObservationSchema = Type.Object({
  target_id: Type.String(),
  value: Type.Union([Type.Integer(), Type.String(), Type.Array(Type.String()), Type.Null()], {
    description:
      'price: integer minor units; text: visible text (≤ 1,500 characters); availability: in_stock | out_of_stock; links: sorted URLs; null until captured',
  }),
  display: Type.Union([Type.String(), Type.Null()]),
  since: Type.Union([Timestamp, Type.Null()], { description: 'when this value was first seen; it has not changed since' }),
  issues: Type.Array(CheckIssueSchema, { description: "the latest check's issues for this target; when any, value is the last one known" }),
});

export const MonitorDetailSchema = Type.Composite([
  MonitorSchema,
  Type.Object({ observations: Type.Array(ObservationSchema, { description: "each target's current observation, in target order" }) }),
]);

export const ListMonitorsQuery = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
    cursor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MAX_CURSOR_LENGTH,
        description: 'meta.next_cursor of the previous page, with the same filters',
      }),
    ),
    status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('paused')])),
    label: Type.Optional(
      Type.String({ ...Label, pattern: '^[^\\u0000]*$', description: 'only monitors carrying this label (exact match)' }),
    ),
    failing: Type.Optional(Type.Boolean({ description: 'true: only failing monitors (failing_since set); false: only the others' })),
  },
  { additionalProperties: false },
);

export const MonitorParams = Type.Object({ monitor_id: Type.String({ format: 'uuid' }) });

export const IdempotencyHeaders = Type.Object(
  {
    'idempotency-key': Type.String({
      pattern: IDEMPOTENCY_KEY_PATTERN,
      description: 'required; 8–128 characters of A-Z a-z 0-9 . _ : -; unique per account and operation for 24 hours',
    }),
  },
  { required: ['idempotency-key'] },
);
