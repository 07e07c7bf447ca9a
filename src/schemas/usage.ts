import { Type } from '@sinclair/typebox';

const Allowance = Type.Object({
  limit: Type.Integer(),
  used: Type.Integer(),
  period_start: Type.String({ format: 'date-time', description: 'UTC start of the current period' }),
  resets_at: Type.String({ format: 'date-time', description: 'UTC start of the next period' }),
});

export const UsageSchema = Type.Object({
  api: Type.Object({
    minute: Type.Object({
      limit: Type.Integer(),
      remaining: Type.Integer(),
      reset: Type.Integer({ description: 'Unix seconds when the current 60-second window ends' }),
    }),
    day: Allowance,
    read_bytes: Allowance,
    manual_checks: Allowance,
  }),
  previews: Type.Object({ day: Allowance, month: Allowance }),
  checks: Type.Object({ html: Allowance, browser: Allowance }),
  notifications: Type.Object({ email: Allowance, webhook: Allowance }),
  monitors: Type.Object({ limit: Type.Integer(), used: Type.Integer() }),
  tokens: Type.Object({ limit: Type.Integer(), active: Type.Integer() }),
});
