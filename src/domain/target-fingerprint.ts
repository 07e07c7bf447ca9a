import { createHash } from 'node:crypto';
import type { LoadMode } from './load-mode.ts';
import type { Selection, Target } from './targets.ts';

function selectionKey(selection: Selection): string {
  switch (selection.scope) {
    case 'page':
      return 'page';
    case 'selector':
      return `selector:${selection.selector}`;
    case 'xpath':
      return `xpath:${selection.expression}`;
    case 'json':
      return `json:${selection.path}`;
  }
}

/**
 * What makes two observed values of a target comparable: its kind, what it
 * selects, how prices are read, which links count, and how the page is
 * loaded, and what is ignored. A baseline stored under another fingerprint no longer applies and
 * the next capture seeds a new one. Label, rule, phrase and threshold are left
 * out on purpose: editing them changes what alerts, not what is observed.
 */
export function targetFingerprint(target: Target, loadMode: LoadMode): string {
  const parts = [
    loadMode,
    target.kind,
    selectionKey(target.selection),
    target.currency ?? '',
    // no decimal is the automatic reading, which reads "31.500" otherwise than "." does
    target.kind === 'price' ? (target.decimal ?? 'auto') : '',
    target.match ?? '',
    // Appended only when set, so targets without ignore patterns keep the fingerprints they always had.
    ...(target.ignore?.length ? [JSON.stringify(target.ignore)] : []),
  ];
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32);
}
