import { Type } from '@sinclair/typebox';
import { NullableTimestamp, Timestamp } from './common.ts';

// Atom feed tokens (DESIGN §8 Feeds): what a token shows is fixed when it is made.

export const CreateFeedTokenBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    label: Type.Optional(
      Type.String({ minLength: 1, maxLength: 50, pattern: '^[^\\u0000]*$', description: 'show only monitors carrying this label' }),
    ),
    monitor_id: Type.Optional(Type.String({ format: 'uuid', description: 'show only this monitor' })),
  },
  { additionalProperties: false, description: 'label and monitor_id exclude each other; neither: the whole account' },
);

export const FeedTokenSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  label: Type.Union([Type.String(), Type.Null()]),
  monitor_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
  hint: Type.String({ description: 'the first 8 characters of the token' }),
  state: Type.Union([Type.Literal('valid'), Type.Literal('revoked')]),
  created_at: Timestamp,
  revoked_at: NullableTimestamp,
});

export const CreatedFeedTokenSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  token: Type.String({ description: 'pwf_…, shown once' }),
  feed_url: Type.String({ description: "the feed's address, with the token in it" }),
});

export const FeedTokenParams = Type.Object({ feed_token_id: Type.String({ format: 'uuid' }) });
