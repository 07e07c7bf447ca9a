import { Type } from '@sinclair/typebox';
import { PLAN_NAMES } from '../domain/plans.ts';
import { SCOPES } from '../domain/scopes.ts';
import { EMAIL_MODES } from '../domain/digest-periods.ts';
import { MAX_CURSOR_LENGTH, NullableTimestamp, Timestamp } from './common.ts';

export const PlanNameSchema = Type.Union(PLAN_NAMES.map((p) => Type.Literal(p)));

export const EmailModeSchema = Type.Union(
  EMAIL_MODES.map((m) => Type.Literal(m)),
  {
    description:
      "change emails of the account's monitors that set no mode of their own: each (one per check, the default), daily or weekly " +
      '(one digest of the period, at digest_hour in time_zone; weekly on Mondays; none when nothing changed)',
  },
);
const DigestHourSchema = Type.Integer({
  minimum: 0,
  maximum: 23,
  description: "the hour digests go out, in the account's time_zone; default 8",
});

export const AccountSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  email: Type.String(),
  plan: Type.String(),
  webhook_url: Type.Union([Type.String(), Type.Null()]),
  time_zone: Type.String({ description: 'IANA time zone in which notifications show times; default UTC' }),
  email_mode: EmailModeSchema,
  digest_hour: DigestHourSchema,
  webhook_secret: Type.Optional(Type.String({ description: 'returned once, when a new webhook_url is set' })),
});

export const AccountListItemSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  email: Type.String(),
  plan: Type.String(),
  webhook_url: Type.Union([Type.String(), Type.Null()]),
  time_zone: Type.String(),
  email_mode: EmailModeSchema,
  digest_hour: DigestHourSchema,
  created_at: Timestamp,
  monitors: Type.Integer({ minimum: 0, description: "the account's monitors, active and paused" }),
});

export const ListAccountsQuery = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
    cursor: Type.Optional(
      Type.String({ minLength: 1, maxLength: MAX_CURSOR_LENGTH, description: 'meta.next_cursor of the previous page' }),
    ),
  },
  { additionalProperties: false },
);

export const CreateAccountBody = Type.Object(
  { email: Type.String({ format: 'email', maxLength: 254 }), plan: PlanNameSchema },
  { additionalProperties: false },
);

export const PatchAccountBody = Type.Object(
  {
    email: Type.Optional(Type.String({ format: 'email', maxLength: 254 })),
    plan: Type.Optional(PlanNameSchema),
    webhook_url: Type.Optional(Type.Union([Type.String({ format: 'uri', maxLength: 2048 }), Type.Null()])),
    time_zone: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: 'an IANA time zone name, e.g. Europe/Berlin, or UTC' }),
    ),
    email_mode: Type.Optional(EmailModeSchema),
    digest_hour: Type.Optional(DigestHourSchema),
  },
  { additionalProperties: false },
);

export const CreateTokenBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    scopes: Type.Array(Type.Union(SCOPES.map((s) => Type.Literal(s))), { minItems: 1, maxItems: SCOPES.length, uniqueItems: true }),
    expires_in_days: Type.Integer({ minimum: 1, maximum: 365 }),
  },
  { additionalProperties: false },
);

export const CreatedTokenSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  token: Type.String({ description: 'the secret, shown once' }),
  expires_at: Timestamp,
});

export const TokenViewSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  scopes: Type.Array(Type.String()),
  hint: Type.String({ description: 'the first characters of the secret' }),
  state: Type.Union([Type.Literal('valid'), Type.Literal('expired'), Type.Literal('revoked'), Type.Literal('disabled')]),
  created_at: Timestamp,
  expires_at: Timestamp,
  revoked_at: NullableTimestamp,
  last_used_at: NullableTimestamp,
});

export const ApiStatusSchema = Type.Object({ open: Type.Boolean(), retry_after_seconds: Type.Integer({ minimum: 1, maximum: 86400 }) });
export const PutApiStatusBody = Type.Object(
  { open: Type.Boolean(), retry_after_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 86400 })) },
  { additionalProperties: false },
);

export const EmptyBody = Type.Object({}, { additionalProperties: false });

export const PasswordLinkSchema = Type.Object({
  url: Type.String({ description: 'the one-time set-password link for the account owner' }),
  expires_at: Timestamp,
});

export const IdParams = Type.Object({ id: Type.String({ format: 'uuid' }) });
