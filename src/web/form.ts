import type { FastifyRequest } from 'fastify';

// Dashboard forms arrive as application/x-www-form-urlencoded; repeated names
// (checkboxes) become arrays.

export type FormBody = Record<string, string | string[]>;

export function parseForm(text: string): FormBody {
  const body = Object.create(null) as FormBody;
  for (const [name, value] of new URLSearchParams(text)) {
    const existing = body[name];
    if (existing === undefined) body[name] = value;
    else body[name] = Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return body;
}

function formOf(request: FastifyRequest): FormBody {
  const body = request.body;
  return body && typeof body === 'object' ? (body as FormBody) : {};
}

/** The field's (first) value, or '' when absent. */
export function field(request: FastifyRequest, name: string): string {
  const value = formOf(request)[name];
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

/** Every field but the CSRF token, in order: what a page carries over to the next form. */
export function formEntries(request: FastifyRequest): [string, string][] {
  return Object.entries(formOf(request))
    .filter(([name]) => name !== '_csrf')
    .flatMap(([name, value]) => (Array.isArray(value) ? value : [value]).map((v): [string, string] => [name, v]));
}

/** Every value of a repeated field. */
export function fields(request: FastifyRequest, name: string): string[] {
  const value = formOf(request)[name];
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/** "shop, kitchen ,shop" → ["shop", "kitchen"]: a comma list as the API's labels. */
export function labelList(text: string): string[] {
  return [
    ...new Set(
      text
        .split(',')
        .map((l) => l.trim())
        .filter((l) => l !== ''),
    ),
  ];
}

/** A typed count as the API's integer; anything but digits becomes -1, which the API's schema refuses with its own message. */
export function countValue(text: string): number {
  return /^\d+$/.test(text) ? Number(text) : -1;
}
