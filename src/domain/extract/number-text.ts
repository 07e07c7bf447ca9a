import { makeDecimal, type DecimalAmount } from './money.ts';

// Reads the numbers written in a piece of text the way shops print prices:
// "1.299,00", "1,299.00", "1 299,00", "1'299.–", "35€99", ".75".
//
// How a separator is read:
// * apostrophes and spaces only ever group thousands (a space only before
//   exactly three digits);
// * when both "." and "," occur, the last one, if it occurs once, is the
//   decimal separator ("1.299,00", "123,456.789");
// * a separator that occurs more than once groups thousands ("1.144.000");
// * a lone separator followed by other than three digits is the decimal
//   separator ("12.99", "129,00", "29.1583"), whatever the hint says;
// * a lone separator followed by exactly three digits ("1.299", "1,299") is
//   the one case only the page's convention can settle: the `decimal` hint
//   decides; without a hint it groups thousands. It is decimal anyway when the
//   part before it cannot be a thousands group ("0.750", "1250.600");
// * a separator followed by a dash marks a whole amount ("1.899,-", "105.–");
// * a euro sign written right after a whole number is the decimal separator
//   when digits touch it ("35€99", "1250€600", French style) or when exactly
//   two follow it after a space ("35€ 99");
// * a leading separator (".75") is a decimal point when nothing later in the
//   number can be the decimal separator.

export type DecimalHint = '.' | ',';

export interface NumberRun {
  /** offsets of the run in the text (end exclusive) */
  readonly start: number;
  readonly end: number;
  /** null when the separators admit no reading ("1.234,567.89") */
  readonly amount: DecimalAmount | null;
  /** the separator read as grouping thousands by the automatic reading (no hint, "1.299"); else null */
  readonly autoGrouped: DecimalHint | null;
}

const DIGIT = /\d/u;
const MARK = new Set(['.', ',']);
const APOSTROPHES = new Set(["'", '’', 'ʼ']);
const SPACES = new Set([' ', '\u00a0', '\u202f', '\u2009', '\u2007']);
const DASHES = new Set(['-', '–', '—']);

interface Scan {
  groups: string[];
  /** separator before groups[i + 1] */
  seps: string[];
  leading: string;
  wholeMarker: boolean;
  euroDecimal: boolean;
  end: number;
}

function isDigit(ch: string | undefined): boolean {
  return ch !== undefined && DIGIT.test(ch);
}

/** The last group read; a scan always holds at least the digits it started with. */
function lastGroup(scan: Scan): string {
  return scan.groups[scan.groups.length - 1]!;
}

function digitsAt(text: string, at: number): string {
  let end = at;
  while (isDigit(text[end])) end++;
  return text.slice(at, end);
}

function scanRun(text: string, start: number): Scan {
  let pos = start;
  let leading = '';
  while (MARK.has(text.charAt(pos))) leading += text.charAt(pos++);
  const first = digitsAt(text, pos);
  const scan: Scan = { groups: [first], seps: [], leading, wholeMarker: false, euroDecimal: false, end: 0 };
  pos += first.length;
  for (;;) {
    // charAt: past the end it is '', which no separator set holds
    const ch = text.charAt(pos);
    const last = lastGroup(scan);
    if (MARK.has(ch) || APOSTROPHES.has(ch)) {
      const spaced = SPACES.has(text.charAt(pos + 1));
      const after = pos + 1 + (spaced ? 1 : 0);
      if (MARK.has(ch) && DASHES.has(text.charAt(after))) {
        scan.seps.push(ch);
        scan.wholeMarker = true;
        pos = after + 1;
        break;
      }
      const group = digitsAt(text, after);
      // "$119. 95": a stray space after the decimal separator, before cents
      if (group.length === 0 || (spaced && (group.length !== 2 || !MARK.has(ch)))) break;
      scan.seps.push(ch);
      scan.groups.push(group);
      pos = after + group.length;
      continue;
    }
    if (SPACES.has(ch) && last.length <= 3 && scan.seps.every((s) => s === ' ' || APOSTROPHES.has(s))) {
      const group = digitsAt(text, pos + 1);
      if (group.length === 3) {
        scan.seps.push(' ');
        scan.groups.push(group);
        pos += 4;
        continue;
      }
    }
    // only right after a whole number: "20,00 € 15" is two prices, not one
    const whole = scan.groups.slice(1).every((g) => g.length === 3);
    if (ch === '€' && whole) {
      const spaced = SPACES.has(text.charAt(pos + 1));
      const centsAt = spaced ? pos + 2 : pos + 1;
      const cents = digitsAt(text, centsAt);
      // "35€ 99"; with nothing between them, "140€33" and "1250€600" (1250.600) too; "1250€ 600" is two numbers
      if (cents.length === 2 || (!spaced && cents.length >= 1 && cents.length <= 3)) {
        scan.seps.push('€');
        scan.groups.push(cents);
        scan.euroDecimal = true;
        pos = centsAt + cents.length;
      }
    }
    break;
  }
  scan.end = pos;
  return scan;
}

/** Index into seps of the decimal separator, -1 for none, null when unreadable. */
function decimalIndex(scan: Scan, hint: DecimalHint | undefined): number | null {
  if (scan.euroDecimal) return scan.seps.length - 1;
  if (scan.wholeMarker) return -1;
  const marks = scan.seps.map((s, i) => ({ s, i })).filter(({ s }) => MARK.has(s));
  const last = marks.at(-1);
  if (last === undefined) return -1;
  const kinds = new Set(marks.map(({ s }) => s));
  if (kinds.size === 2) {
    return marks.filter(({ s }) => s === last.s).length === 1 ? last.i : null;
  }
  // seps[i] stands between groups[i] and groups[i + 1], so both exist
  const after = scan.groups[last.i + 1]!;
  if (marks.length > 1) return after.length === 3 ? -1 : null;
  if (after.length !== 3) return last.i;
  const head = scan.groups[last.i]!;
  if (last.i === 0 && (head === '0' || head.length > 3)) return last.i;
  if (hint === undefined) return -1;
  return last.s === hint ? last.i : -1;
}

/** The separator the automatic reading took as grouping where only the page's convention could settle it ("1.299"). */
function autoGrouped(scan: Scan): DecimalHint | null {
  const marks = scan.seps.filter((s) => MARK.has(s));
  const mark = marks[0];
  if (scan.euroDecimal || scan.wholeMarker || marks.length !== 1 || mark === undefined || lastGroup(scan).length !== 3) return null;
  const at = scan.seps.indexOf(mark);
  return decimalIndex(scan, undefined) === -1 && decimalIndex(scan, mark as DecimalHint) === at ? (mark as DecimalHint) : null;
}

function readScan(scan: Scan, hint: DecimalHint | undefined): DecimalAmount | null {
  const index = decimalIndex(scan, hint);
  if (index === null) return null;
  if (index >= 0) {
    return makeDecimal(scan.groups.slice(0, index + 1).join(''), scan.groups.slice(index + 1).join(''));
  }
  const digits = scan.groups.join('');
  const laterMarkCouldBeDecimal = scan.seps.some((s) => MARK.has(s) && (hint === undefined || s === hint));
  const leadingIsPoint = hint === undefined ? scan.leading !== '' : scan.leading.includes(hint);
  if (leadingIsPoint && !laterMarkCouldBeDecimal && !scan.wholeMarker) return makeDecimal('0', digits);
  return makeDecimal(digits, '');
}

/** Every number in the text, in order. */
export function findNumberRuns(text: string, hint?: DecimalHint): NumberRun[] {
  const runs: NumberRun[] = [];
  let pos = 0;
  while (pos < text.length) {
    const ch = text.charAt(pos);
    const startsLeading = MARK.has(ch) && !isDigit(text[pos - 1]) && /^[.,]*\d/u.test(text.slice(pos, pos + 8));
    if (!isDigit(ch) && !startsLeading) {
      pos++;
      continue;
    }
    const scan = scanRun(text, pos);
    runs.push({ start: pos, end: scan.end, amount: readScan(scan, hint), autoGrouped: hint === undefined ? autoGrouped(scan) : null });
    pos = Math.max(scan.end, pos + 1);
  }
  return runs;
}

/** Whether a percent sign follows the run ("40% off" is not a price). */
export function isPercentage(text: string, run: NumberRun): boolean {
  return /^\s?%/u.test(text.slice(run.end, run.end + 2));
}
