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

export const DiffDetail = Type.Union([Type.Literal('complete'), Type.Literal('truncated'), Type.Literal('too_large')], {
  description:
    'complete; truncated: the unified diff was cut at 200 KiB; too_large: the texts were too large to compare in detail ' +
    '(past the size or time budget) and hunks holds the one range of lines between their common start and end',
});

const WordPartSchema = Type.Object({
  op: Type.Union([Type.Literal('same'), Type.Literal('removed'), Type.Literal('added')]),
  text: Type.String({ description: 'captured text (untrusted; never render as HTML)' }),
});

export const DiffHunkSchema = Type.Object(
  {
    before_start: Type.Integer({
      description: '1-based first line in before_text; with a count of 0, the empty range sits before this line',
    }),
    before_count: Type.Integer({ minimum: 0 }),
    after_start: Type.Integer({
      description: '1-based first line in after_text; with a count of 0, the empty range sits before this line',
    }),
    after_count: Type.Integer({ minimum: 0 }),
    words: Type.Union([Type.Array(WordPartSchema), Type.Null()], {
      description: 'the removed and added lines compared word by word; null when past the size or time budget',
    }),
  },
  { description: 'one block of changed lines' },
);

export const ChangeDiffSchema = Type.Object(
  {
    detail: DiffDetail,
    unified: Type.String({
      description: 'unified diff of the captured texts (headers --- before / +++ after, 3 lines of context), at most 200 KiB',
    }),
    hunks: Type.Array(DiffHunkSchema),
  },
  { description: "the stored diff of the change's captured texts, as GET /changes/{id} gives it (diff, diff_detail, hunks)" },
);

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
  diff: Type.String({
    description:
      'unified diff of before_text and after_text (headers --- before / +++ after, 3 lines of context), at most 200 KiB; ' +
      'the headers only when diff_detail is too_large',
  }),
  diff_detail: DiffDetail,
  hunks: Type.Array(DiffHunkSchema, { description: 'the changed blocks of lines, in order' }),
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
