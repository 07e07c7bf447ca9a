import { Type } from '@sinclair/typebox';
import { DOCUMENT_FORMATS } from '../domain/page-source.ts';
import { TargetListSchema } from '../domain/targets.ts';
import { Timestamp } from './common.ts';

export const LoadModeSchema = Type.Union([Type.Literal('html'), Type.Literal('browser')], {
  description: 'html: plain page fetch; browser: rendered by Chromium, for content that needs JavaScript',
});

export const CreatePreviewBody = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2048, description: 'a public http(s) URL' }),
    load_mode: LoadModeSchema,
  },
  { additionalProperties: false },
);

export const PreviewElementSchema = Type.Object({
  selector: Type.String({
    description: 'a CSS selector matching exactly this element in the capture; in a JSON document the JSONPath of this value',
  }),
  tag: Type.String({ description: "the element's tag; in a JSON document the value's type (string, number, boolean, null, array)" }),
  text: Type.String({ maxLength: 200 }),
  hints: Type.Array(Type.Union([Type.Literal('price'), Type.Literal('availability'), Type.Literal('links'), Type.Literal('heading')])),
});

export const CheckIssueSchema = Type.Object({
  target_id: Type.Union([Type.String(), Type.Null()]),
  code: Type.String({
    description:
      'e.g. selector_missing, selector_invalid, selector_too_costly, selector_ambiguous, price_not_found, price_ambiguous, json_invalid, pdf_unreadable, ' +
      'currency_mismatch, availability_unknown, links_missing, links_too_many, blocked, fetch_failed, timeout, load_incomplete; ' +
      "in a monitor's last_issues also not_in_plan (the account's plan keeps the active monitor from being checked)",
  }),
  message: Type.String(),
});

export const PreviewSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  url: Type.String(),
  final_url: Type.String({ description: 'the URL after redirects' }),
  load_mode: LoadModeSchema,
  format: Type.Union(
    DOCUMENT_FORMATS.map((f) => Type.Literal(f)),
    {
      description:
        'what the page is: html (elements are CSS selectors), json (a JSON document, application/json or +json: elements are JSONPaths ' +
        'for a json selection), pdf (application/pdf, read as text: elements are its pages and headings, for orientation; targets use ' +
        'scope page); JSON and PDF documents are read with load_mode html',
    },
  ),
  title: Type.Union([Type.String(), Type.Null()]),
  created_at: Timestamp,
  expires_at: Timestamp,
  elements: Type.Array(PreviewElementSchema, { maxItems: 200 }),
  issues: Type.Array(CheckIssueSchema, {
    description:
      'load issues that did not prevent the preview, e.g. load_incomplete (read before its load event: some resources never finished loading)',
  }),
});

export const TargetResultSchema = Type.Object({
  target_id: Type.String(),
  ok: Type.Boolean(),
  value: Type.Union([Type.String(), Type.Integer(), Type.Array(Type.String()), Type.Null()], {
    description:
      'text: normalised text (≤ 1,500 chars); price: integer minor units; availability: in_stock | out_of_stock; links: sorted absolute URLs',
  }),
  display: Type.Union([Type.String({ maxLength: 1500 }), Type.Null()], {
    description:
      'the value for people; for a price, amount and currency followed by how the text was read when that was a choice, ' +
      'e.g. 31,500.00 IDR (automatic reading: "." groups thousands) or 60.00 USD (set aside: $120.00 labelled as a former price)',
  }),
  links: Type.Union([Type.Array(Type.String(), { maxItems: 10 }), Type.Null()]),
  issues: Type.Array(CheckIssueSchema),
});

export const EvaluateBody = Type.Object({ targets: TargetListSchema }, { additionalProperties: false });
export const EvaluateResultSchema = Type.Object({ targets: Type.Array(TargetResultSchema) });
export const PreviewParams = Type.Object({ preview_id: Type.String({ format: 'uuid' }) });
