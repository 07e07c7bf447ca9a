import { Type } from '@sinclair/typebox';
import { MAX_CURSOR_LENGTH, Timestamp } from './common.ts';

const ObservedValue = Type.Union([Type.String(), Type.Integer(), Type.Array(Type.String())], {
  description:
    'text: normalised text; price: integer minor units of the target currency; availability: in_stock | out_of_stock; links: sorted absolute URLs',
});

const Side = Type.Object({
  value: ObservedValue,
  display: Type.Union([Type.String(), Type.Null()], { description: 'the value as shown to people, e.g. "24.00 EUR"' }),
});

export const RuleMatchSchema = Type.Object({ target_id: Type.String(), rule: Type.String() });

const changeFields = {
  id: Type.String({ format: 'uuid' }),
  monitor_id: Type.String({ format: 'uuid' }),
  target_id: Type.String(),
  kind: Type.Union([Type.Literal('text'), Type.Literal('price'), Type.Literal('availability'), Type.Literal('links')]),
  detected_at: Timestamp,
  rule_matches: Type.Union([Type.Array(RuleMatchSchema), Type.Null()], {
    description: '[] : the value changed but no alert rule matched; null : the target has no rule (legacy any-change, always notifies)',
  }),
  before: Side,
  after: Side,
};

export const ChangeSchema = Type.Object(changeFields);

export const ChangeDetailSchema = Type.Object({
  ...changeFields,
  before_text: Type.Union([Type.String(), Type.Null()], {
    description: 'captured plain text (untrusted; never render as HTML); null when the snapshot is unavailable',
  }),
  after_text: Type.Union([Type.String(), Type.Null()], {
    description: 'captured plain text (untrusted; never render as HTML); null when the snapshot is unavailable',
  }),
  diff: Type.String({ description: 'unified diff of before_text and after_text (headers --- before / +++ after), at most 200 KiB' }),
});

export const ListChangesQuery = Type.Object(
  {
    monitor_id: Type.Optional(Type.String({ format: 'uuid' })),
    target_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    since: Type.Optional(Type.String({ format: 'date-time', description: 'RFC 3339; changes detected at or after this instant' })),
    until: Type.Optional(Type.String({ format: 'date-time', description: 'RFC 3339; changes detected before this instant' })),
    matched: Type.Optional(
      Type.Boolean({
        description: 'true: changes that notify (a rule matched, or the target has no rule); false: value changes no rule matched',
      }),
    ),
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
    cursor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MAX_CURSOR_LENGTH,
        description: 'meta.next_cursor of the previous page, with the same filters',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ChangeParams = Type.Object({ change_id: Type.String({ format: 'uuid' }) });
