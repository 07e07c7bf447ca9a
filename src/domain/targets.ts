import { Type, type Static } from '@sinclair/typebox';

// The one definition of a target: it validates API requests, types the domain
// code and appears in the OpenAPI document. Per-kind rules are checked by
// validateTarget (src/domain/target-rules.ts) because they cross fields.

export const TARGET_KINDS = ['text', 'price', 'availability', 'links'] as const;
export type TargetKind = (typeof TARGET_KINDS)[number];

export const RULES_BY_KIND = {
  text: ['changed', 'appears', 'disappears'],
  price: ['changed', 'dropped', 'below'],
  availability: ['changed', 'available', 'unavailable'],
  links: ['new_links'],
} as const satisfies Record<TargetKind, readonly string[]>;

export type TargetRule = (typeof RULES_BY_KIND)[TargetKind][number];

export const SelectionSchema = Type.Union(
  [
    Type.Object({ scope: Type.Literal('page') }, { additionalProperties: false }),
    Type.Object(
      {
        scope: Type.Literal('selector'),
        selector: Type.String({ minLength: 1, maxLength: 500, description: 'a CSS selector confirmed by the preview' }),
      },
      { additionalProperties: false },
    ),
  ],
  { description: 'the whole page, or one element chosen by a selector the preview confirms' },
);
export type Selection = Static<typeof SelectionSchema>;

export const TargetSchema = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9._:-]+$', description: 'identifier chosen by the caller, unique within the monitor' }),
    label: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'display label; defaults to the id' })),
    kind: Type.Union(TARGET_KINDS.map((k) => Type.Literal(k))),
    selection: SelectionSchema,
    rule: Type.Optional(
      Type.Union(
        [...new Set(Object.values(RULES_BY_KIND).flat())].map((r) => Type.Literal(r)),
        { description: 'alert rule; omitted means the legacy any-change behaviour (rule_matches null)' },
      ),
    ),
    phrase: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'text targets: the phrase for appears/disappears' })),
    currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$', description: 'price targets: ISO 4217 code (required)' })),
    decimal: Type.Optional(
      Type.Union([Type.Literal('.'), Type.Literal(',')], {
        description:
          'price targets: decimal separator of the page. Omitted means automatic: decided per text; a lone "." or "," ' +
          'before exactly three digits groups thousands ("Rp 31.500" is 31500 IDR) except in currencies with three decimals ' +
          '("1.299 KWD"), and the display says which reading was taken. Amounts are ' +
          'never rounded: more decimals than the currency has is the issue price_ambiguous',
      }),
    ),
    threshold: Type.Optional(Type.String({ pattern: '^[0-9]{1,12}(\\.[0-9]{1,4})?$', description: 'price targets with rule below: dot-decimal amount such as 30.00' })),
    match: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'links targets: substring a link URL must contain' })),
  },
  { additionalProperties: false },
);
export type Target = Static<typeof TargetSchema>;

export const TargetListSchema = Type.Array(TargetSchema, { minItems: 1, maxItems: 3 });
