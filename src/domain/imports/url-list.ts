import { isWebUrl, WHOLE_PAGE, type ImportPlan, type MonitorDraft, type SkippedEntry } from './monitor-draft.ts';

// A plain list of URLs, one a line (blank lines and lines starting with # are
// passed over): each becomes a monitor of the whole page's text.

export function draftsFromUrlList(text: string, maxUrls: number): ImportPlan {
  const drafts: MonitorDraft[] = [];
  const skipped: SkippedEntry[] = [];
  const seen = new Set<string>();
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const source = `line ${index + 1}`;
    if (!isWebUrl(line)) skipped.push({ source, reason: `not an http:// or https:// URL: ${line.slice(0, 200)}` });
    else if (seen.has(line)) skipped.push({ source, reason: `${line} is listed twice` });
    else if (drafts.length >= maxUrls) skipped.push({ source, reason: `more than ${maxUrls} URLs in one import` });
    else {
      seen.add(line);
      drafts.push({
        url: line,
        name: null,
        labels: [],
        interval_minutes: null,
        load_mode: 'html',
        targets: [WHOLE_PAGE],
        status: 'active',
        not_carried: [],
      });
    }
  });
  return { drafts, skipped };
}
