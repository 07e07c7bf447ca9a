// A tiny tagged-template helper for server-rendered pages: every interpolated
// value is escaped unless it is already SafeHtml (the output of `html` itself),
// so captured page text and user input can never become markup by accident.

export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

function render(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.value;
  // false/null/undefined render nothing, so `${cond && html`…`}` reads naturally.
  if (value === null || value === undefined || value === false) return '';
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0]!;
  for (const [i, value] of values.entries()) out += render(value) + strings[i + 1]!;
  return new SafeHtml(out);
}
