import type { Target } from '../targets.ts';
import { scheduleFromChangedetection } from './changedetection-schedule.ts';
import {
  cleanLabels,
  isWebUrl,
  MAX_INTERVAL_MINUTES,
  MAX_NAME,
  WHOLE_PAGE,
  type ImportPlan,
  type MonitorDraft,
  type SkippedEntry,
} from './monitor-draft.ts';

// changedetection.io's watches, as its backup archive keeps them in
// url-watches.json: {"watching": {<uuid>: watch}, "settings": {"application":
// {"tags": {<uuid>: {"title"}}}}}. A watch's fields read here: url, title,
// tags (tag uuids; older versions: "tag", a comma-separated string),
// time_between_check {weeks, days, hours, minutes, seconds}, its scheduler
// time_schedule_limit (or the installation's, settings.requests, with
// time_between_check_use_default), include_filters
// (CSS; XPath when starting with "/" or "xpath:"; JSONPath after "json:"), fetch_backend
// ("html_webdriver" renders in a browser), paused; and, to say they are not
// carried over, browser_steps, notification_urls, subtractive_selectors,
// ignore_text, trigger_text, extract_text, headers, method and body.

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string' && s.trim() !== '') : []);

const SECONDS_PER = { weeks: 604_800, days: 86_400, hours: 3_600, minutes: 60, seconds: 1 } as const;

/** Minutes between checks, rounded up; null when the watch uses the installation's default. */
function intervalMinutes(value: unknown, notCarried: string[]): number | null {
  if (!isObject(value)) return null;
  let seconds = 0;
  for (const [unit, factor] of Object.entries(SECONDS_PER)) {
    const n = value[unit];
    if (typeof n === 'number' && Number.isFinite(n) && n > 0) seconds += n * factor;
  }
  if (seconds === 0) return null;
  const minutes = Math.ceil(seconds / 60);
  if (minutes > MAX_INTERVAL_MINUTES) {
    notCarried.push(`its interval of ${minutes} minutes: the longest is ${MAX_INTERVAL_MINUTES} (one week), taken instead`);
    return MAX_INTERVAL_MINUTES;
  }
  return minutes;
}

function isXPath(filter: string): boolean {
  return filter.startsWith('/') || filter.startsWith('(/') || /^xpath1?:/i.test(filter);
}

/** A changedetection.io filter as a pagewatch target: CSS as a selector, XPath as an XPath expression, json: as a JSONPath. */
function targetOf(filter: string, n: number): Target {
  const trimmed = filter.trim();
  if (isXPath(trimmed)) {
    const expression = trimmed.replace(/^xpath1?:/i, '').slice(0, 500);
    return { id: `xpath-${n}`, kind: 'text', selection: { scope: 'xpath', expression }, rule: 'changed' };
  }
  if (/^json:/i.test(trimmed)) {
    return { id: `json-${n}`, kind: 'text', selection: { scope: 'json', path: trimmed.slice(5).trim().slice(0, 500) }, rule: 'changed' };
  }
  return { id: `css-${n}`, kind: 'text', selection: { scope: 'selector', selector: trimmed.slice(0, 500) }, rule: 'changed' };
}

function targetsOf(filters: string[]): Target[] {
  const targets = filters.map((filter, i) => targetOf(filter, i + 1));
  // With no filter, the watch becomes one of the whole page, as changedetection.io watched it.
  return targets.length > 0 ? targets : [WHOLE_PAGE];
}

function labelsOf(watch: Json, tagTitles: Map<string, string>): string[] {
  const fromTags = strings(watch.tags).map((uuid) => tagTitles.get(uuid) ?? uuid);
  const fromTag = typeof watch.tag === 'string' ? watch.tag.split(',') : [];
  return cleanLabels([...fromTags, ...fromTag]);
}

/** The settings a watch had that pagewatch has no place for. */
function unsupported(watch: Json): string[] {
  const notes: string[] = [];
  const steps = Array.isArray(watch.browser_steps)
    ? watch.browser_steps.filter((s) => isObject(s) && typeof s.operation === 'string' && !/^(choose one)?$/i.test(s.operation.trim()))
    : [];
  if (steps.length > 0) notes.push(`${steps.length} browser step${steps.length === 1 ? '' : 's'}: not supported`);
  const notify = strings(watch.notification_urls);
  if (notify.length > 0) {
    notes.push(`${notify.length} notification URL${notify.length === 1 ? '' : 's'}: add the services as channels (POST /api/v1/channels)`);
  }
  for (const [field, what] of [
    ['subtractive_selectors', 'elements removed before comparing'],
    ['ignore_text', 'text ignored when comparing'],
    ['trigger_text', 'trigger text'],
    ['text_should_not_be_present', 'text that should not be present'],
    ['extract_text', 'extracted text'],
  ] as const) {
    const values = strings(watch[field]);
    if (values.length > 0) notes.push(`${what} (${values.map((v) => JSON.stringify(v)).join(', ')}): not carried over`);
  }
  if (isObject(watch.headers) && Object.keys(watch.headers).length > 0) notes.push('request headers: pages are loaded without them');
  if (typeof watch.method === 'string' && watch.method.toUpperCase() !== 'GET')
    notes.push(`the ${watch.method} request: pages are loaded with GET`);
  else if (typeof watch.body === 'string' && watch.body !== '') notes.push('a request body: pages are loaded with GET');
  return notes;
}

/** What a watch takes from the installation's settings. */
interface Installation {
  tagTitles: Map<string, string>;
  scheduleLimit: unknown;
  timezone: string;
}

function draftOf(watch: Json, installation: Installation): MonitorDraft {
  const notCarried: string[] = [];
  const interval = intervalMinutes(watch.time_between_check, notCarried);
  const limit = watch.time_between_check_use_default === true ? installation.scheduleLimit : watch.time_schedule_limit;
  const schedule = scheduleFromChangedetection(limit, installation.timezone, interval, notCarried);
  const targets = targetsOf(strings(watch.include_filters));
  const title = typeof watch.title === 'string' ? watch.title.trim().slice(0, MAX_NAME) : '';
  return {
    url: (watch.url as string).trim(),
    name: title === '' ? null : title,
    labels: labelsOf(watch, installation.tagTitles),
    interval_minutes: interval,
    schedule,
    load_mode: watch.fetch_backend === 'html_webdriver' ? 'browser' : 'html',
    targets,
    status: watch.paused === true ? 'paused' : 'active',
    not_carried: [...notCarried, ...unsupported(watch)],
  };
}

/** Monitor drafts from url-watches.json's parsed content; at most `maxWatches` of them. */
export function draftsFromChangedetection(document: unknown, maxWatches: number): ImportPlan {
  if (!isObject(document) || !isObject(document.watching)) {
    throw new Error('not a changedetection.io url-watches.json: it has no "watching" object');
  }
  const settings = isObject(document.settings) ? document.settings : {};
  const application = isObject(settings.application) ? settings.application : {};
  const requests = isObject(settings.requests) ? settings.requests : {};
  const tagTitles = new Map<string, string>();
  if (isObject(application.tags)) {
    for (const [uuid, tag] of Object.entries(application.tags))
      if (isObject(tag) && typeof tag.title === 'string') tagTitles.set(uuid, tag.title);
  }
  const timezone = typeof application.timezone === 'string' && application.timezone.trim() !== '' ? application.timezone.trim() : 'UTC';
  const installation = { tagTitles, scheduleLimit: requests.time_schedule_limit, timezone };
  const drafts: MonitorDraft[] = [];
  const skipped: SkippedEntry[] = [];
  const seen = new Set<string>();
  for (const [uuid, watch] of Object.entries(document.watching)) {
    const source = `watch ${uuid}`;
    if (!isObject(watch) || typeof watch.url !== 'string' || !isWebUrl(watch.url.trim())) {
      skipped.push({ source, reason: 'no http:// or https:// URL' });
    } else if (seen.has(watch.url.trim())) {
      skipped.push({ source, reason: `a second watch of ${watch.url.trim()}` });
    } else if (drafts.length >= maxWatches) {
      skipped.push({ source, reason: `more than ${maxWatches} watches in one import` });
    } else {
      seen.add(watch.url.trim());
      drafts.push(draftOf(watch, installation));
    }
  }
  return { drafts, skipped };
}
