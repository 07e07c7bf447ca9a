import type { ChangeView } from '../../services/changes.ts';
import { html, type SafeHtml } from '../html.ts';
import { utcText, when } from './format.ts';

// A price target's history as an inline SVG step chart (a price holds until
// it changes), and an availability target's timeline. Both are drawn from the
// target's recorded changes, oldest first.

export interface HistoryPoint {
  at: Date;
  value: number | string;
  display: string | null;
}

/** The value before the first change (from `since`), then each change's new value. */
export function historyOf(changesNewestFirst: ChangeView[], since: Date): HistoryPoint[] {
  const changes = [...changesNewestFirst].reverse();
  const [first] = changes;
  if (first === undefined) return [];
  return [
    { at: since, value: first.before.value as number | string, display: first.before.display },
    ...changes.map((c) => ({ at: new Date(c.detected_at), value: c.after.value as number | string, display: c.after.display })),
  ];
}

const W = 640;
const H = 220;
const PAD = { left: 88, right: 16, top: 16, bottom: 32 };

export function priceChart(targetId: string, label: string, points: HistoryPoint[], now: Date): SafeHtml {
  const numeric = points.filter((p): p is HistoryPoint & { value: number } => typeof p.value === 'number');
  const [first] = numeric;
  if (first === undefined) return html`<p class="muted">No price changes recorded yet.</p>`;
  const start = first.at.getTime();
  const end = Math.max(now.getTime(), numeric.at(-1)!.at.getTime(), start + 1);
  const values = numeric.map((p) => p.value);
  const [low, high] = [Math.min(...values), Math.max(...values)];
  const margin = Math.max((high - low) * 0.1, 1);
  const x = (t: number) => PAD.left + ((t - start) / (end - start)) * (W - PAD.left - PAD.right);
  const y = (v: number) => PAD.top + (1 - (v - (low - margin)) / (high - low + 2 * margin)) * (H - PAD.top - PAD.bottom);
  let path = `M${x(start).toFixed(1)},${y(first.value).toFixed(1)}`;
  for (const p of numeric.slice(1)) path += ` H${x(p.at.getTime()).toFixed(1)} V${y(p.value).toFixed(1)}`;
  path += ` H${x(end).toFixed(1)}`;
  const lowPoint = numeric.find((p) => p.value === low)!;
  const highPoint = numeric.find((p) => p.value === high)!;
  const summary = `${label}: ${numeric.length} prices from ${utcText(first.at.toISOString())}; lowest ${lowPoint.display}, highest ${highPoint.display}, latest ${numeric.at(-1)!.display}.`;
  return html`<figure>
<svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-labelledby="chart-${targetId}-title">
<title id="chart-${targetId}-title">${summary}</title>
<line class="axis" x1="${PAD.left}" y1="${H - PAD.bottom}" x2="${W - PAD.right}" y2="${H - PAD.bottom}"></line>
<line class="axis" x1="${PAD.left}" y1="${PAD.top}" x2="${PAD.left}" y2="${H - PAD.bottom}"></line>
<text x="${PAD.left - 6}" y="${y(high) + 4}" text-anchor="end">${highPoint.display}</text>
${low !== high && html`<text x="${PAD.left - 6}" y="${y(low) + 4}" text-anchor="end">${lowPoint.display}</text>`}
<text x="${PAD.left}" y="${H - 10}">${utcText(first.at.toISOString())}</text>
<text x="${W - PAD.right}" y="${H - 10}" text-anchor="end">${utcText(new Date(end).toISOString())}</text>
<path class="line" d="${path}"></path>
${numeric.map((p) => html`<circle class="dot" cx="${x(p.at.getTime()).toFixed(1)}" cy="${y(p.value).toFixed(1)}" r="3.5"><title>${p.display} at ${utcText(p.at.toISOString())}</title></circle>`)}
</svg>
<figcaption class="muted">${summary}</figcaption>
</figure>`;
}

export function availabilityTimeline(points: HistoryPoint[]): SafeHtml {
  if (points.length === 0) return html`<p class="muted">No availability changes recorded yet.</p>`;
  return html`<ol class="timeline">${points.map(
    (p) =>
      html`<li class="state-${String(p.value)}">${String(p.value) === 'in_stock' ? 'in stock' : String(p.value) === 'out_of_stock' ? 'out of stock' : String(p.value)} from ${when(p.at.toISOString())}</li>`,
  )}</ol>`;
}
