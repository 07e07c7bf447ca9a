import type { Element } from 'domhandler';
import type { ParsedPage } from './parse-page.ts';
import { partitionPoint } from './partition-point.ts';
import { perPage } from './per-page.ts';
import { BlockList } from './block-list.ts';
import { CUTTABLE } from './text-capture.ts';
import { TextLayer } from './text-layer.ts';
import { rawVisibleText, STRUCK, visibleText, type VisibleTextOptions } from './visible-text.ts';

// A page's visible text read once (as the parser noted it, text-capture.ts), with where each element's text
// starts and ends in it: the stored text, the areas around the title and the
// controls are slices of it, and a text without some elements (struck-through
// prices, controls worded both ways) is the walk's raw text less their
// stretches, normalised once. A view leaves out only elements named in
// CUTTABLE (text-capture.ts): its skip is asked of those alone. Every text
// equals visibleText of the same nodes with the same options (the skip so
// confined); an element the walk did not read (inside a hidden one) or inside
// a left-out one is read on its own.

export interface PageTextView {
  /** visibleText(page.document.children, options), the skip asked only of elements named in CUTTABLE */
  readonly text: string;
  /** visibleText([el], options) */
  of(el: Element): string;
  /** where of(el) is in `text`; null when the element's text is read on its own */
  span(el: Element): { from: number; to: number } | null;
  /**
   * How many of `places` (offsets in `text`, ascending) lie in span(el), asked of many elements: their raw offsets
   * against the places' (one lookup each, once), not each element's span. Null where span(el) is, or where a place is
   * no character copied from the page (a separator).
   */
  placesIn(places: readonly number[]): (el: Element) => number | null;
}

interface PageWalk {
  layer: TextLayer;
  /** the elements read, children before their parent, with their raw text's offsets */
  elements: BlockList<Element>;
  starts: BlockList<number>;
  ends: BlockList<number>;
  /** the places in `elements` of those named in CUTTABLE, in order */
  cuttable: number[];
  /** where the last element looked up was found, and how many places lookups have scanned in all */
  cursor: number;
  scanned: number;
  index: Map<Element, number> | null;
}

/** Scanning the elements read this many times over costs more than a map of them. */
const SCANS_BEFORE_MAP = 16;

/** The page's text as the parser noted it, or walked again when the tree was changed since. */
function walkPage(page: ParsedPage): PageWalk {
  const lookups = { cursor: 0, scanned: 0, index: null };
  if (page.parsedText) {
    const { raw, elements, starts, ends, cuttable } = page.parsedText;
    return { layer: new TextLayer(raw), elements, starts, ends, cuttable, ...lookups };
  }
  const walk: PageWalk = {
    layer: new TextLayer(''),
    elements: new BlockList(),
    starts: new BlockList(),
    ends: new BlockList(),
    cuttable: [],
    ...lookups,
  };
  const onElement = (el: Element, start: number, end: number) => {
    if (CUTTABLE.has(el.name)) walk.cuttable.push(walk.elements.length);
    walk.elements.push(el);
    walk.starts.push(start);
    walk.ends.push(end);
  };
  walk.layer = new TextLayer(rawVisibleText(page.document.children, { parts: [], length: 0, onElement }));
  return walk;
}

/**
 * The element's place among those read. Lookups come mostly in the order the
 * walk read the elements (a page's controls, its table rows, the title and
 * then its ancestors), so each scans on from the last one found (back from
 * it if need be); only a page whose lookups keep scanning far gets a map.
 */
function indexOf(walk: PageWalk, el: Element): number | undefined {
  if (walk.index) return walk.index.get(el);
  const { elements, cursor } = walk;
  let at = elements.indexOf(el, cursor);
  if (at >= 0) {
    walk.scanned += at - cursor + 1;
  } else {
    at = cursor > 0 ? elements.lastIndexOf(el, cursor - 1) : -1;
    walk.scanned += elements.length - (at >= 0 ? at : 0);
  }
  if (walk.scanned > SCANS_BEFORE_MAP * elements.length) {
    walk.index = new Map();
    for (let i = 0; i < elements.length; i++) walk.index.set(elements.at(i), i);
  }
  if (at < 0) return undefined;
  walk.cursor = at;
  return at;
}

/** The stretches of the raw text the options leave out, outermost only, in text order. */
function cutsOf(walk: PageWalk, options: VisibleTextOptions): { start: number; end: number }[] {
  const cuts: { start: number; end: number }[] = [];
  // the plain view leaves nothing out: no need to ask every element
  if (!options.skipStruck && options.skip === undefined) return cuts;
  for (const i of walk.cuttable) {
    const el = walk.elements.at(i);
    if (!((options.skipStruck && STRUCK.has(el.name)) || options.skip?.(el))) continue;
    const start = walk.starts.at(i);
    // children come first: the cuts inside this element are part of it
    while (cuts.length > 0 && cuts[cuts.length - 1]!.start >= start) cuts.pop();
    cuts.push({ start, end: walk.ends.at(i) });
  }
  return cuts;
}

function viewWithout(walk: PageWalk, options: VisibleTextOptions): PageTextView {
  const cuts = cutsOf(walk, options);
  const { skip } = options;
  // an element read on its own leaves out what the view does, and no more
  const confined: VisibleTextOptions = skip ? { ...options, skip: (el) => CUTTABLE.has(el.name) && skip(el) } : options;
  const raw = walk.layer.raw;
  let layer = walk.layer;
  /** removed[k]: raw characters left out before cut k ends */
  const removed: number[] = [];
  if (cuts.length > 0) {
    const kept: string[] = [];
    let at = 0;
    for (const cut of cuts) {
      kept.push(raw.slice(at, cut.start));
      removed.push((removed[removed.length - 1] ?? 0) + cut.end - cut.start);
      at = cut.end;
    }
    kept.push(raw.slice(at));
    layer = new TextLayer(kept.join(''));
  }
  // how many cuts start (or end) at or before the offset
  const count = (at: number, edge: 'start' | 'end'): number => partitionPoint(cuts.length, (i) => cuts[i]![edge] <= at);
  // an element's offsets are never inside a cut: what is cut before one is every cut ending by it
  const shift = (at: number) => at - (removed[count(at, 'end') - 1] ?? 0);
  /** The element's offsets in the view's raw text; null when its text is read on its own. */
  const rawSpan = (el: Element) => {
    const i = indexOf(walk, el);
    if (i === undefined) return null;
    const start = walk.starts.at(i);
    const end = walk.ends.at(i);
    const around = cuts[count(start, 'start') - 1];
    if (around && around.end >= end) return null;
    return { start: shift(start), end: shift(end) };
  };
  return {
    text: layer.text,
    of(el) {
      const raw = rawSpan(el);
      return raw ? layer.slice(raw.start, raw.end) : visibleText([el], confined);
    },
    span(el) {
      const raw = rawSpan(el);
      return raw ? layer.span(raw.start, raw.end) : null;
    },
    placesIn(places) {
      const raws = places.map((at) => layer.toRaw(at));
      if (raws.includes(null)) return () => null;
      // toRaw keeps the places' order
      const rawPlaces = raws as number[];
      const before = (at: number) => partitionPoint(rawPlaces.length, (i) => rawPlaces[i]! < at);
      return (el) => {
        const raw = rawSpan(el);
        return raw && layer.slices(raw.start, raw.end) ? before(raw.end) - before(raw.start) : null;
      };
    },
  };
}

/**
 * The page's visible text with the options' leaving out (`key` names them:
 * one view per page and key), and any element's text within it. The skip is
 * asked only of elements named in CUTTABLE.
 */
export function pageTextView(page: ParsedPage, key: string, options: VisibleTextOptions = {}): PageTextView {
  const walk = perPage(page, 'visible text walk', () => walkPage(page));
  return perPage(page, `visible text view ${key}`, () => viewWithout(walk, options));
}
