import { Type } from '@sinclair/typebox';
import { DOCUMENT_FORMATS } from '../domain/page-source.ts';
import { TargetListSchema } from '../domain/targets.ts';
import { STEP_ACTIONS, STEP_ISSUES, StepListSchema } from '../domain/steps.ts';
import { Timestamp } from './common.ts';

export const LoadModeSchema = Type.Union([Type.Literal('html'), Type.Literal('browser')], {
  description: 'html: plain page fetch; browser: rendered by Chromium, for content that needs JavaScript',
});

/** The name of one of the operator's outbound proxies (DESIGN §5 Outbound proxies). */
export const ProxyName = Type.String({
  pattern: '^[a-z0-9][a-z0-9_-]{0,31}$',
  description:
    "load through this one of the operator's outbound proxies (unknown: 422 proxy_unknown; a plan without proxies: 422 proxy_not_allowed)",
});

export const CreatePreviewBody = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2048, description: 'a public http(s) URL' }),
    load_mode: LoadModeSchema,
    proxy: Type.Optional(ProxyName),
    steps: Type.Optional(StepListSchema),
  },
  { additionalProperties: false },
);

export const StepOutcomeSchema = Type.Object({
  index: Type.Integer({ description: "the step's position in steps, from 0" }),
  action: Type.Union(STEP_ACTIONS.map((a) => Type.Literal(a))),
  ok: Type.Boolean(),
  issue: Type.Union(
    [
      Type.Object({
        code: Type.Union(
          STEP_ISSUES.map((c) => Type.Literal(c)),
          {
            description:
              'element_missing, element_ambiguous (the selector matches several), not_actionable (hidden, disabled, covered), option_missing, ' +
              "timeout, navigation_refused (off the monitor's site), secret_missing, failed",
          },
        ),
        message: Type.String(),
      }),
      Type.Null(),
    ],
    { description: 'why the step failed; null when ok' },
  ),
  url: Type.String({ description: "the page's URL after the step" }),
  title: Type.Union([Type.String(), Type.Null()], { description: "the page's title after the step" }),
});

export const PreviewElementSchema = Type.Object({
  selector: Type.String({
    description:
      'a CSS selector matching exactly this element in the capture; in a JSON document the JSONPath of this value; ' +
      'in a PDF the page it is on (page N), for orientation: targets on a PDF read the whole document',
  }),
  tag: Type.String({
    description: "the element's tag; in a JSON document the value's type (string, number, boolean, null, array); in a PDF page or heading",
  }),
  text: Type.String({ maxLength: 200 }),
  hints: Type.Array(Type.Union([Type.Literal('price'), Type.Literal('availability'), Type.Literal('links'), Type.Literal('heading')])),
});

export const CheckIssueSchema = Type.Object({
  target_id: Type.Union([Type.String(), Type.Null()]),
  code: Type.String({
    description:
      'e.g. selector_missing, selector_invalid, selector_too_costly, selector_ambiguous, price_not_found, price_ambiguous, json_invalid, pdf_unreadable, ' +
      'currency_mismatch, availability_unknown, links_missing, links_too_many, blocked (an anti-bot wall answered instead of the page), address_refused (the SSRF guard refused the address), fetch_failed, timeout, load_incomplete, ' +
      "step_failed (a browser step failed: the check failed and recorded no value; the message names the step's number and action); " +
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
      'load issues that did not prevent the preview, e.g. load_incomplete (read before its load event: some resources never finished loading), ' +
      'step_failed (a step failed: the elements are those of the page as it stood; such a preview makes no monitor)',
  }),
  steps: Type.Array(StepOutcomeSchema, {
    description: 'each step run, in order, with its outcome; the run stops at the first failing step. Empty without steps',
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

export const EvaluateBody = Type.Object(
  {
    targets: TargetListSchema,
    steps: Type.Optional({ ...StepListSchema, description: 'when given, must be the steps the preview was loaded with' }),
  },
  { additionalProperties: false },
);
export const EvaluateResultSchema = Type.Object({ targets: Type.Array(TargetResultSchema) });
export const PreviewParams = Type.Object({ preview_id: Type.String({ format: 'uuid' }) });
