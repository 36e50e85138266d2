// The engines' TSV as words with positions: lines in the engine's reading order, amounts read in pieces joined,
// box borders dropped, quotes straightened and page skew undone.
import { leastSquares, type TextItem } from '../layout.ts';

const GROUP_TAIL = /[;:\]}|)]+$/;
/**
 * An amount the engine read in pieces or with its commas lost ("1.000 000", "2 000 000;", "$1 000 000": the
 * commas of a low-resolution scan are a pixel or two) becomes one word with commas, "1,000,000", where the
 * pattern is unambiguous: a first group of 1-3 digits, then groups of exactly 3 digits at word-spacing or
 * closer, three groups or more (or two after a "$"), and no digit word right after (a phone number is not
 * an amount). One word "1.000.000" is written with commas too.
 */
export function joinDigitGroups(line: TextItem[]): TextItem[] {
  const out: TextItem[] = [];
  for (let i = 0; i < line.length; i++) {
    const first = line[i];
    // "1000 000": the first comma lost too, when a 3-digit group follows.
    const m = /^(\$?)(\d{1,3}(?:[.,]\d{3})*|[1-9]000)$/.exec(first.text.replace(GROUP_TAIL, ''));
    if (!m) {
      out.push(first);
      continue;
    }
    const groups = /^\d000$/.test(m[2]) ? [m[2][0], '000'] : m[2].split(/[.,]/);
    let j = i + 1;
    let prev = first;
    while (j < line.length) {
      const w = line[j];
      const t = w.text.replace(GROUP_TAIL, '');
      const gap = w.x - (prev.x + prev.w);
      if (!/^\d{3}(?:[.,]\d{3})*$/.test(t) || gap > 0.6 * Math.max(prev.h, w.h) || gap < -0.5 * w.h) break;
      groups.push(...t.split(/[.,]/));
      prev = w;
      j++;
      if (GROUP_TAIL.test(w.text)) break;
    }
    const next = line[j];
    const digitAfter = next !== undefined && /^\d/.test(next.text) && next.x - (prev.x + prev.w) <= 0.6 * Math.max(prev.h, next.h);
    const enough = groups.length >= 3 || (m[1] === '$' && groups.length >= 2);
    if (!enough || digitAfter || !groups.slice(1).every((g) => g.length === 3)) {
      out.push(first);
      continue;
    }
    const parts = line.slice(i, j);
    const x1 = Math.max(...parts.map((w) => w.x + w.w));
    const y0 = Math.min(...parts.map((w) => w.y));
    const y1 = Math.max(...parts.map((w) => w.y + w.h));
    out.push({ ...first, text: m[1] + groups.join(','), w: x1 - first.x, y: y0, h: y1 - y0, conf: Math.min(...parts.map((w) => w.conf ?? 0)) });
    i = j - 1;
  }
  return out;
}

/** Tesseract's TSV (both engines): word rows (level 5) grouped into the engine's lines, in its reading order. */
export function linesFromTsv(tsv: string, ptPerPx: number): TextItem[][] {
  const byLine = new Map<string, TextItem[]>();
  for (const row of tsv.split('\n')) {
    const c = row.split('\t');
    if (c.length < 12 || c[0] !== '5' || !c[11].trim()) continue;
    const key = `${c[2]}.${c[3]}.${c[4]}`;
    let list = byLine.get(key);
    if (!list) byLine.set(key, (list = []));
    list.push(toItem(c[11], +c[6], +c[7], +c[8], +c[9], +c[10], ptPerPx));
  }
  // Lines numbered in order of first appearance.
  return [...byLine.values()].map((words, line) => dropStrayQuotes(words).map((w) => ({ ...w, line })));
}

/**
 * A speck of scanner noise just before a word is read as a quote glued to it ("'88 Foundry Rd", "\"Total
 * Premium:"): an opening quote that nothing later on the engine line closes is dropped, where a quoted term
 * ("\"Insured\"", "'Bodily Injury'") keeps its quotes.
 */
export function dropStrayQuotes(words: TextItem[]): TextItem[] {
  return words.map((w, k) => {
    const m = /^(['"])(?=[A-Za-z0-9$])/.exec(w.text);
    if (!m) return w;
    const rest = [w.text.slice(1), ...words.slice(k + 1).map((o) => o.text)].join(' ');
    return rest.includes(m[1]) ? w : { ...w, text: w.text.slice(1) };
  });
}

/**
 * The engine picks curly or straight quotes by the glyph's look, not by the text: "EMPLOYERS’ LIABILITY" as
 * printed is "EMPLOYERS' LIABILITY" to every rule that reads it. OCR words get straight quotes.
 */
export const straightQuotes = (t: string) => t.replace(/[\u2018\u2019\u201a\u2032`]/g, "'").replace(/[\u201c\u201d\u201e\u2033]/g, '"');

function toItem(text: string, x: number, y: number, w: number, h: number, conf: number, s: number): TextItem {
  return { text: boxedMark(straightQuotes(text)), x: x * s, y: y * s, w: w * s, h: h * s, source: 'ocr', conf: Math.max(0, Math.min(1, conf / 100)) };
}

/**
 * Box borders read as glyphs: a tick read with its box ("|X|", "[X", "X]") is the tick, "X"; a border glued
 * to a word ("[PER", "LIMIT|") is dropped.
 */
export function boxedMark(word: string): string {
  if (/^[[(|]+[Xx][\])|]*$|^[Xx][\])|]+$/.test(word)) return 'X';
  return word.replace(/^[[|]+(?=[A-Za-z0-9$]{2})/, '').replace(/(?<=[A-Za-z0-9.,)]{2})[\]|]+$/, '');
}

/**
 * Undo page skew in word positions: the OCR engine finds the (slanted) lines; the median slope of word
 * bottoms along those lines is removed, so rows and columns line up for the layout stage.
 */
export function deskew(lines: TextItem[][]): TextItem[] {
  const slopes: number[] = [];
  for (const l of lines) {
    if (l.length < 3) continue;
    const xs = l.map((w) => w.x + w.w / 2);
    const ys = l.map((w) => w.y + w.h);
    const fit = leastSquares(xs, ys);
    if (fit && xs[xs.length - 1] - xs[0] > 60) slopes.push(fit.slope);
  }
  const words = lines.flat();
  if (slopes.length < 3) return words;
  slopes.sort((a, b) => a - b);
  const slope = slopes[Math.floor(slopes.length / 2)];
  if (Math.abs(slope) < 0.002 || Math.abs(slope) > 0.15) return words;
  return words.map((w) => ({ ...w, y: w.y - slope * (w.x + w.w / 2), x: w.x + slope * (w.y + w.h / 2) }));
}

export const meanConf = (words: TextItem[]) => (words.length ? words.reduce((a, w) => a + (w.conf ?? 0), 0) / words.length : 0);
