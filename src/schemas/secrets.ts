import { Type } from '@sinclair/typebox';
import { SECRET_NAME_PATTERN } from '../domain/steps.ts';
import { Timestamp } from './common.ts';

// Account secrets (issue #42): typed by browser steps by name; values are write-only.

export const SecretParams = Type.Object({
  name: Type.String({ pattern: SECRET_NAME_PATTERN, description: "the secret's name: 1 to 64 of a-z 0-9 _" }),
});

export const PutSecretBody = Type.Object(
  {
    value: Type.String({
      minLength: 4,
      maxLength: 500,
      description: 'the value a type step types; stored encrypted and never shown again (not in answers, logs, captures or errors)',
    }),
  },
  { additionalProperties: false },
);

export const SecretSchema = Type.Object({
  name: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
