import { Type, type Static } from '@sinclair/typebox';
import { MAX_IGNORE_PATTERNS, MAX_PATTERN_CHARS } from './noise.ts';

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
    Type.Object(
      {
        scope: Type.Literal('xpath'),
        expression: Type.String({
          minLength: 1,
          maxLength: 500,
          description: "an HTML page: an XPath 1.0 expression selecting one element, e.g. //th[text()='Price']/following-sibling::td",
        }),
      },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        scope: Type.Literal('json'),
        path: Type.String({
          minLength: 1,
          maxLength: 500,
          description: 'a JSON document: a JSONPath (RFC 9535) naming one value, e.g. $.offers[0].price (links: one or more values)',
        }),
      },
      { additionalProperties: false },
    ),
  ],
  {
    description:
      'the whole page, one element chosen by a CSS selector the preview confirms or by an XPath expression, ' +
      'or in a JSON document one value chosen by a JSONPath',
  },
);
export type Selection = Static<typeof SelectionSchema>;

export const TargetSchema = Type.Object(
  {
    id: Type.String({
      minLength: 1,
      maxLength: 64,
      pattern: '^[A-Za-z0-9._:-]+$',
      description: 'identifier chosen by the caller, unique within the monitor',
    }),
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
          'price targets: decimal separator of the page, "." or ",", always honoured. Omitted (the default) means automatic: ' +
          'decided per number from the text and the currency\'s conventions; a lone "." or "," before exactly three digits ' +
          'groups thousands ("Rp 31.500" is 31500 IDR, "12.500 ₫" 12500 VND: such prices are written without decimals) except ' +
          'in currencies with three decimals ("1.299 KWD"), and the display says which reading was taken. Amounts are ' +
          'never rounded: more decimals than the currency has is the issue price_ambiguous, never a rounded value',
      }),
    ),
    threshold: Type.Optional(
      Type.String({
        pattern: '^[0-9]{1,12}(\\.[0-9]{1,4})?$',
        description: 'price targets with rule below: dot-decimal amount such as 30.00',
      }),
    ),
    match: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'links targets: substring a link URL must contain' })),
    ignore: Type.Optional(
      Type.Array(
        Type.Union([
          Type.Object(
            { text: Type.String({ minLength: 1, maxLength: MAX_PATTERN_CHARS, description: 'literal text, matched case-sensitively' }) },
            { additionalProperties: false },
          ),
          Type.Object(
            {
              regex: Type.String({
                minLength: 1,
                maxLength: MAX_PATTERN_CHARS,
                description:
                  'a regular expression in RE2 syntax (JavaScript syntax without backreferences and lookaround), matched case-insensitively in linear time',
              }),
            },
            { additionalProperties: false },
          ),
        ]),
        {
          maxItems: MAX_IGNORE_PATTERNS,
          description:
            'text and links targets: parts of the text removed before comparison (e.g. a timestamp, "12 people viewing"), with punctuation ' +
            'that only framed them, or links dropped; backreferences and lookaround are refused',
        },
      ),
    ),
    confirm: Type.Optional(
      Type.Boolean({
        description:
          'alert a change only when a re-check about two minutes later still sees the new value; a value that flips back is never recorded. ' +
          'The re-check is an ordinary check of the monthly allowance (no manual-check allowance). Default false',
      }),
    ),
  },
  { additionalProperties: false },
);
export type Target = Static<typeof TargetSchema>;

// The effective limit is the plan's targets_per_monitor (3 on Pro), checked by validateTargetList; this bound only keeps requests sane.
export const MAX_TARGETS_PER_REQUEST = 20;
export const TargetListSchema = Type.Array(TargetSchema, {
  minItems: 1,
  maxItems: MAX_TARGETS_PER_REQUEST,
  description: "1 to the plan's targets_per_monitor targets (3 on Pro)",
});
