import { TOO_LARGE_NOTE, describeHunk, type ChangeDiff } from '../domain/text-diff.ts';
import type { ChangeRow } from '../store/changes-store.ts';

// What a change alert shows of the change itself: the new (and removed) links
// of a links target, the old and new price or stock state, and for text the
// changed lines with a little context from the stored diff. Plain lines here;
// the email escapes them for its HTML part.

/** Lines of diff shown at most; the rest is on the dashboard. */
export const MAX_DIFF_LINES = 40;
/** Links listed at most per side. */
export const MAX_LISTED_LINKS = 50;

export type SummaryLine = { kind: 'plain' | 'added' | 'removed' | 'context' | 'heading'; text: string };

const STOCK_WORDS: Record<string, string> = { in_stock: 'in stock', out_of_stock: 'out of stock' };

function shownValue(value: unknown, display: string | null): string {
  if (display !== null) return display;
  if (typeof value === 'string') return STOCK_WORDS[value] ?? value;
  return String(value);
}

/** The links of `after` that are not in `before` (links values are sorted lists of URLs). */
export function addedLinks(change: Pick<ChangeRow, 'kind' | 'before_value' | 'after_value'>): string[] {
  if (change.kind !== 'links' || !Array.isArray(change.after_value)) return [];
  const before = new Set(Array.isArray(change.before_value) ? (change.before_value as string[]) : []);
  return (change.after_value as string[]).filter((url) => !before.has(url));
}

function removedLinks(change: ChangeRow): string[] {
  if (!Array.isArray(change.before_value)) return [];
  const after = new Set(Array.isArray(change.after_value) ? (change.after_value as string[]) : []);
  return (change.before_value as string[]).filter((url) => !after.has(url));
}

function listed(urls: string[], kind: 'added' | 'removed', heading: string): SummaryLine[] {
  if (urls.length === 0) return [];
  const more = urls.length - MAX_LISTED_LINKS;
  return [
    { kind: 'heading', text: heading },
    ...urls.slice(0, MAX_LISTED_LINKS).map((text) => ({ kind, text })),
    ...(more > 0 ? [{ kind: 'plain' as const, text: `… and ${more} more` }] : []),
  ];
}

/** The diff's hunks without their headers, cut at MAX_DIFF_LINES. */
function diffLines(diff: ChangeDiff): SummaryLine[] {
  if (diff.detail === 'too_large') {
    return [{ kind: 'plain', text: `The texts are ${TOO_LARGE_NOTE}; the changes lie within ${diff.hunks.map(describeHunk).join('; ')}.` }];
  }
  const body = diff.unified.split('\n').slice(2, -1);
  const lines: SummaryLine[] = body
    .slice(0, MAX_DIFF_LINES)
    .map((line) =>
      line.startsWith('@@')
        ? { kind: 'heading', text: line }
        : { kind: line.startsWith('+') ? 'added' : line.startsWith('-') ? 'removed' : 'context', text: line.slice(1) },
    );
  if (body.length > MAX_DIFF_LINES || diff.detail === 'truncated')
    lines.push({ kind: 'plain', text: '… (the whole diff is on the change page)' });
  return lines;
}

/** What changed, in lines: links, price or stock state, or the changed text with context. */
export function changeSummary(change: ChangeRow, diff: ChangeDiff | undefined): SummaryLine[] {
  const before = shownValue(change.before_value, change.before_display);
  const after = shownValue(change.after_value, change.after_display);
  switch (change.kind) {
    case 'links':
      return [...listed(addedLinks(change), 'added', 'New links:'), ...listed(removedLinks(change), 'removed', 'Links gone:')];
    case 'price':
      return [{ kind: 'plain', text: `Price: ${before} → ${after}` }];
    case 'availability':
      return [{ kind: 'plain', text: `Stock: ${before} → ${after}` }];
    default:
      // Without captured texts (not kept, or past the size stored) the values are all there is to show.
      if (diff === undefined || diff.hunks.length === 0) {
        return [
          { kind: 'removed', text: before },
          { kind: 'added', text: after },
        ];
      }
      return diffLines(diff);
  }
}
