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

/** The monitored address as a link out; anything but http(s) stays text, so a stored address can never become a script link. */
export function pageLink(url: string): SafeHtml {
  if (!/^https?:\/\//i.test(url)) return html`${url}`;
  return html`<a href="${url}" rel="noopener noreferrer" target="_blank">${url}</a>`;
}
