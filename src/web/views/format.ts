import { html, type SafeHtml } from '../html.ts';

// Times are shown in UTC, the zone every allowance period is defined in.

export function utcText(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

export function when(iso: string | null | undefined): SafeHtml {
  return iso ? html`<time datetime="${iso}">${utcText(iso)}</time>` : html`<span class="muted">—</span>`;
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
