import type { ErrorObject } from 'ajv';
import type { TSchema } from '@sinclair/typebox';
import { validationError, validatorCompiler } from '../http/validation.ts';

/** Validates a form's API body like the API's body validation, with the same error values. */
export function bodyValidator(schema: TSchema): (value: unknown) => void {
  const validate = validatorCompiler({ schema, method: 'POST', url: '', httpPart: 'body' }) as ((value: unknown) => boolean) & {
    errors?: ErrorObject[] | null;
  };
  return (value) => {
    if (!validate(value)) throw validationError(validate.errors ?? [], 'body');
  };
}
