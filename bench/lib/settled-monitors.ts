import { extractTarget, parsePage } from '../../src/domain/extract/index.ts';
import type { PageValidators } from '../../src/domain/page-validators.ts';
import { detectChange } from '../../src/domain/rules.ts';
import { targetFingerprint } from '../../src/domain/target-fingerprint.ts';
import type { Target } from '../../src/domain/targets.ts';
import type { Queryable } from '../../src/store/database.ts';
import { writeBaselines, type BaselineRow } from '../../src/store/baselines-store.ts';
import { writePageValidators } from '../../src/store/page-validators-store.ts';
import { saveTexts, textHash, type TextRow } from '../../src/store/texts-store.ts';
import { smallPage } from './pages.ts';

// Product-page monitors as their first full capture would have left them,
// written in bulk: a first capture of 100,000 pages through the engine takes
// about half an hour per store here. The baselines are decided by the
// product's own extraction and change detection on the watched elements of
// page n (the same markup as the ~100 KB product page n, bench/lib/pages.ts),
// written with the engine's own statements together with their texts and,
// for pages whose server sends them, the validators the check stored.
// Not written: check history and check state (the monitors look never checked).

export interface SettledMonitor {
  id: string;
  /** the page number of the product page it watches */
  n: number;
  url: string;
  /** what the page's server sent with its last full answer; null: none */
  validators: PageValidators | null;
}

const BATCH = 5000;

/** The baselines and texts of page n's first capture, by target; the same for every monitor of that page. */
function firstCapture(n: number, targets: Target[], at: Date): { baselines: Omit<BaselineRow, 'monitor_id'>[]; texts: TextRow[] } {
  const page = parsePage(smallPage(n), `http://bench.invalid/product/${n}.html`);
  const baselines: Omit<BaselineRow, 'monitor_id'>[] = [];
  const texts: TextRow[] = [];
  for (const target of targets) {
    const extraction = extractTarget(page, target);
    if (!extraction.ok) throw new Error(`page ${n}, target ${target.id}: ${JSON.stringify(extraction.issues)}`);
    const decision = detectChange(target, null, extraction.value);
    if (decision.outcome !== 'seeded') throw new Error(`page ${n}, target ${target.id}: ${decision.outcome}, not seeded`);
    const hash = extraction.text === null ? null : textHash(extraction.text);
    if (hash !== null && extraction.text !== null) texts.push({ hash, content: extraction.text, used_at: at });
    baselines.push({
      target_id: target.id,
      fingerprint: targetFingerprint(target, 'html'),
      value: decision.baseline,
      display: extraction.display,
      text_hash: hash,
      seen_links: [],
      updated_at: at,
      pending_value: null,
      pending_since: null,
    });
  }
  return { baselines, texts };
}

/** Writes the first capture's baselines, texts and validators of every monitor (configuration version 1, as inserted). */
export async function settleMonitors(db: Queryable, monitors: SettledMonitor[], targets: Target[]): Promise<void> {
  const at = new Date();
  const captures = new Map<number, ReturnType<typeof firstCapture>>();
  const captureOf = (n: number) => {
    let capture = captures.get(n);
    if (!capture) captures.set(n, (capture = firstCapture(n, targets, at)));
    return capture;
  };
  for (let start = 0; start < monitors.length; start += BATCH) {
    const batch = monitors.slice(start, start + BATCH);
    const texts = batch.flatMap((m) => captureOf(m.n).texts);
    await saveTexts(db, texts);
    await writeBaselines(
      db,
      batch.flatMap((m) => captureOf(m.n).baselines.map((b) => ({ ...b, monitor_id: m.id }))),
    );
    await writePageValidators(
      db,
      batch.filter((m) => m.validators !== null).map((m) => ({ monitorId: m.id, configVersion: 1, validators: m.validators })),
    );
  }
}
