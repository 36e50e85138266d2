// Repairs of broken text layers, decided per page on the pdf.js text items before layout:
//  - doubled glyphs: "fake bold" drawn two or three times at a small offset, often cut into different runs
//    ("BodilBodily Injy Injuryury"); runs covered by another run holding the same text are dropped and
//    overlapping runs trimmed.
//  - letter-spaced text: pdf.js puts a space between widely spaced glyphs ("2 0,0 0 0", "Y ears"); on pages
//    where that pattern is common the spaces inside numbers and after a lone capital are removed.
//  - numbers stored right to left ("009,042" for 240,900): a digit group that is not valid US grouping but
//    is once reversed is reversed.
//  - invisible text (white on white, invisible render mode, off the page) is removed before these; see
//    invisible.ts (it needs the PDF's drawing operators, so it runs in the worker).
//  - words run together: a text layer whose glyphs are placed one by one with no space characters, in a font
//    whose size pdf.js misjudges (its word-gap thresholds follow the Tf size, e.g. 90 for 9 pt text), reads
//    "YourStateFarmAgent", often with right-aligned amounts in drawing order ("00.1,888$"). The text layer
//    cannot say where the spaces were, so such a page is read by OCR instead (bypass, not repair).
//  - ticks drawn, not typed: a tick box (PER STATUTE) whose X is drawn as lines is seen on the rendered page
//    and an "X" put before its label (ticks.ts; it needs the page image, so it runs after the text layer).
// Each repair names itself in the page's `repairs` so a reviewer can see what was changed.
import type { TextItem } from './layout.ts';

/** Every repair, by the name it is reported under in a page's `repairs`. */
export const textRepairs = ['invisible_text', 'doubled_glyphs', 'letter_spacing', 'reversed_numbers', 'run_together_words', 'drawn_ticks'] as const;
export type TextRepair = (typeof textRepairs)[number];

/** Drop runs that repeat a run at (almost) the same place, and trim runs that overlap their neighbour's text. */
export function removeDoubledGlyphs(items: TextItem[]): { items: TextItem[]; changed: number } {
  const text = items.filter((i) => i.source === 'text' && i.text.trim() !== '');
  if (text.length < 2) return { items, changed: 0 };
  // Group by baseline.
  const byLine = new Map<number, TextItem[]>();
  for (const it of text) {
    const key = Math.round((it.y + it.h) / 1.5);
    const l = byLine.get(key) ?? byLine.get(key - 1) ?? byLine.get(key + 1) ?? [];
    if (l.length === 0) byLine.set(key, l);
    l.push(it);
  }
  const drop = new Set<TextItem>();
  const replace = new Map<TextItem, TextItem>();
  let changed = 0;
  for (const line of byLine.values()) {
    if (line.length < 2) continue;
    const kept: TextItem[] = [];
    for (const it of [...line].sort((a, b) => b.w - a.w || a.x - b.x)) {
      const t = it.text.trim();
      const cover = kept.find((k) => it.x >= k.x - 2 && it.x + it.w <= k.x + k.w + 2 && k.text.includes(t) && Math.abs(k.h - it.h) < 1.5);
      if (cover && t.length > 0) {
        drop.add(it);
        changed++;
        continue;
      }
      kept.push(it);
    }
    // Overlapping survivors: trim the right one's prefix that repeats the left one's suffix.
    kept.sort((a, b) => a.x - b.x);
    for (let i = 1; i < kept.length; i++) {
      const a = replace.get(kept[i - 1]) ?? kept[i - 1];
      const b = kept[i];
      const overlap = a.x + a.w - b.x;
      if (overlap <= 2 || b.w <= 0) continue;
      const est = Math.round((overlap / b.w) * b.text.length);
      let k = Math.min(b.text.length, est + 2);
      while (k > 0 && !a.text.endsWith(b.text.slice(0, k))) k--;
      if (k > 0 && k >= est - 2) {
        const rest = b.text.slice(k);
        const nb = { ...b, text: rest, x: a.x + a.w, w: Math.max(0, b.w - (a.x + a.w - b.x)) };
        if (rest.trim() === '') drop.add(b);
        else replace.set(b, nb);
        changed++;
      }
    }
  }
  if (changed === 0) return { items, changed };
  return { items: items.filter((i) => !drop.has(i)).map((i) => replace.get(i) ?? i), changed };
}

const SPACED_CAPITAL = /(?<![A-Za-z])([A-Z]) (?=[a-z]{2,})/g;
/** Three or more short digit runs split by single spaces ("2 0,0 0 0", "$ 1 2 4.0 0"). */
const SPACED_DIGITS = /(?<![\d$,.])(?:[\d$,.]{1,3} ){2,}[\d,.]{1,3}(?![\d,.])/g;

/** Whether a page's text is letter-spaced: many lone capitals before a word and digits split by spaces. */
export function isLetterSpaced(items: TextItem[]): boolean {
  let capitals = 0;
  for (const it of items) if (it.source === 'text') capitals += (it.text.match(SPACED_CAPITAL) ?? []).filter((m) => !/^[AI] $/.test(m)).length;
  // Most clean pages stop here: the digits and words are counted only for a page that may be letter-spaced.
  if (capitals < 3) return false;
  let digits = 0;
  let words = 0;
  for (const it of items) {
    if (it.source !== 'text') continue;
    digits += (it.text.match(SPACED_DIGITS) ?? []).filter((m) => /\d/.test(m)).length;
    words += it.text.split(/\s+/).filter(Boolean).length;
  }
  return words > 0 && capitals + digits >= 4 && (capitals + digits) / words > 0.01;
}

function fixLetterSpacing(s: string): string {
  // On a letter-spaced page a space between two digits is the spacing, not a word break.
  let out = s.replace(/(?<=[\d$]) (?=\d)|(?<=\d) (?=[,.]\d)|(?<=\d[,.]) (?=\d)/g, '');
  out = out.replace(SPACED_CAPITAL, (m, c: string) => (c === 'A' || c === 'I' ? m : c));
  return out;
}

/** A fragment of a letter-spaced digit run: "0", "5/1", "2:0", "/", "$", "2." (three characters at most). */
const DIGIT_TOKEN = /^[\d$/.,:-]{1,3}$/;
/** A fragment of a letter-spaced capitals run: "H", "HE", "0". */
const CAP_TOKEN = /^[A-Z0-9]{1,2}$/;
/** A complete date: a letter-spaced run stops after its year ("0 5/1 2/2 0 2 3 1 2:0 1" is a date, then a time). */
const FULL_DATE = /\d{1,2}\/\d{1,2}\/\d{4}$/;

function joinRun(tokens: string[]): string {
  let out = '';
  let acc = '';
  for (const t of tokens) {
    // "05/12/2022 - 05/12/2023" keeps its dash: the run is a period, not two dates apart.
    if (acc !== '' && FULL_DATE.test(acc) && t !== '-') {
      out += acc + ' ';
      acc = '';
    }
    acc += t;
  }
  return out + acc;
}

/**
 * Join the letter-spaced runs of one text item, decided per run, not per page. pdf.js writes a space
 * between glyphs drawn further apart than about a tenth of the font size, so tracked text reads
 * "0 5/1 2/2 0 2 2", "2 0 1 4", "H O N D", "C HE V". Joined:
 *  - an item that is nothing but fragments of one or two capitals or digits, two or more of them single
 *    characters ("H O N D", "C HE V", "1 0", "2 0 1 4"): a whole item of such fragments is not ordinary prose;
 *  - inside any item, a run of digit fragments ("0", "5/1", "2.") of three or more with two or more single
 *    digits, and either four or more fragments or a separator inside one ("0 5/1 2/2 0 2 2"): a run stops
 *    after a complete date, so "0 5/1 2/2 0 2 3 1 2:0 1" reads "05/12/2023 12:01".
 * Words of ordinary text ("David A Paul", "1 2003 Toyota", "Coverage A B") are not such runs and stay apart.
 * Returns the text unchanged when nothing was joined.
 */
export function joinSpacedRuns(text: string): string {
  // Every join needs single-character fragments: most items of a clean page have none and stop here.
  if (!/(?:^|\s)\S \S(?:\s|$)|(?:^|\s)\S \S\S?\S? \S(?:\s|$)/.test(text)) return text;
  const single = (t: string) => t.length === 1;
  const parts = text.split(/(\s{2,})/);
  const whole = parts.length === 1 ? text.trim() : null;
  if (whole !== null) {
    const tokens = whole.split(' ');
    const alnum = (t: string) => /[A-Z0-9]/.test(t);
    if (
      tokens.length >= 2 &&
      tokens.every((t) => CAP_TOKEN.test(t) || DIGIT_TOKEN.test(t)) &&
      alnum(tokens[0]) &&
      alnum(tokens[tokens.length - 1]) &&
      tokens.filter((t) => single(t) && alnum(t)).length >= 2
    ) {
      const lead = text.slice(0, text.indexOf(whole));
      return lead + joinRun(tokens) + text.slice(lead.length + whole.length);
    }
  }
  return parts
    .map((seg, k) => {
      if (k % 2 === 1) return seg;
      const tokens = seg.split(' ');
      const out: string[] = [];
      for (let i = 0; i < tokens.length;) {
        let j = i;
        while (j < tokens.length && DIGIT_TOKEN.test(tokens[j])) j++;
        // A run starts with a digit or "$" and ends with a digit: "1 - 2" keeps a lone separator apart.
        while (j > i && !/\d/.test(tokens[j - 1])) j--;
        const run = /^[\d$]/.test(tokens[i]) ? tokens.slice(i, j) : [];
        const singles = run.filter((t) => /^\d$/.test(t)).length;
        if (run.length >= 3 && singles >= 2 && (run.length >= 4 || run.some((t) => t.length > 1 && /\d[/.:,-]|[/.:,-]\d/.test(t)))) {
          out.push(joinRun(run));
          i = j;
        } else {
          out.push(tokens[i]);
          i++;
        }
      }
      return out.join(' ');
    })
    .join('');
}

/**
 * Letter-spaced runs cut into several items ("1 0", "3 3", "0" for 10330, with a space glyph between them):
 * after joining, neighbours on one baseline that are letter-spaced (joined, or one character) and closer than
 * 0.3 of the font size are one word; the gap between words of a tracked line is much wider ("0" to "E": 0.8).
 */
function mergeSpacedNeighbours(items: TextItem[], spaced: Set<TextItem>): TextItem[] {
  if (spaced.size === 0) return items;
  const isSpaced = (i: TextItem) => spaced.has(i) || /^[A-Z0-9]$/.test(i.text.trim());
  const gone = new Set<TextItem>();
  const merged = new Map<TextItem, TextItem>();
  const text = items.filter((i) => i.source === 'text' && i.text.trim() !== '').sort((a, b) => a.y + a.h - (b.y + b.h) || a.x - b.x);
  for (let k = 0; k < text.length; k++) {
    const a0 = text[k];
    if (gone.has(a0) || !isSpaced(a0)) continue;
    let a = merged.get(a0) ?? a0;
    let touched = spaced.has(a0);
    for (let m = k + 1; m < text.length; m++) {
      const b = text[m];
      if (Math.abs(b.y + b.h - (a.y + a.h)) > 0.2 * a.h) break;
      const gap = b.x - (a.x + a.w);
      if (Math.abs(b.h - a.h) > 0.1 * a.h || gap < -0.5 || gap > 0.3 * a.h || !isSpaced(b) || !(touched || spaced.has(b))) break;
      touched = true;
      a = { ...a, text: a.text.trimEnd() + b.text.trimStart(), w: b.x + b.w - a.x };
      gone.add(b);
      merged.set(a0, a);
    }
  }
  if (gone.size === 0) return items;
  return items.filter((i) => !gone.has(i)).map((i) => merged.get(i) ?? i);
}

/** Join letter-spaced runs item by item (see joinSpacedRuns), then neighbours that are parts of one run. */
export function joinLetterSpacing(items: TextItem[]): { items: TextItem[]; changed: number } {
  const spaced = new Set<TextItem>();
  const out = items.map((i) => {
    if (i.source !== 'text') return i;
    const t = joinSpacedRuns(i.text);
    if (t === i.text) return i;
    const n = { ...i, text: t };
    spaced.add(n);
    return n;
  });
  return { items: mergeSpacedNeighbours(out, spaced), changed: spaced.size };
}

/** "009,042" → "240,900": digit groups that are only valid US grouping when read backwards. */
export function fixReversedNumber(token: string): string {
  const valid = (s: string) => /^\d{1,3}(,\d{3})+$/.test(s) && !/^0/.test(s);
  if (!/^\d[\d,]*\d$/.test(token) || !token.includes(',') || valid(token)) return token;
  const rev = [...token].reverse().join('');
  return valid(rev) ? rev : token;
}

/**
 * Whether a page's text runs its words together: on a page of 150 letters or more, 30% or more of the
 * space-separated tokens are joined words ("StateFarmLloyds": a lower-case letter, a capital, a lower-case
 * letter; or 16+ letters in one token).
 * Ordinary pages score under 0.15 (corpus: 0.14 at most; State Farm's broken pages 0.67 and 0.86).
 */
export function runsWordsTogether(items: TextItem[]): boolean {
  let words = 0;
  let joined = 0;
  let letters = 0;
  for (const it of items) {
    if (it.source !== 'text') continue;
    for (const w of it.text.split(/\s+/)) {
      if (!w) continue;
      words++;
      const n = w.replace(/[^A-Za-z]/g, '').length;
      letters += n;
      if (n >= 16 || /[a-z][A-Z][a-z]/.test(w)) joined++;
    }
  }
  return letters >= 150 && joined / words >= 0.3;
}

/** Repair one page's text items; returns the items and which repairs were applied. `enabled`: all by default. */
export function repairTextItems(items: TextItem[], enabled: readonly TextRepair[] = textRepairs): { items: TextItem[]; repairs: TextRepair[] } {
  const repairs: TextRepair[] = [];
  let out = items;
  if (enabled.includes('doubled_glyphs')) {
    const d = removeDoubledGlyphs(items);
    // one or two overlaps are ordinary kerning, not fake bold
    if (d.changed >= 3) {
      out = d.items;
      repairs.push('doubled_glyphs');
    }
  }
  if (enabled.includes('letter_spacing')) {
    let fixed = false;
    if (isLetterSpaced(out)) {
      out = out.map((i) => (i.source === 'text' ? { ...i, text: fixLetterSpacing(i.text) } : i));
      fixed = true;
    }
    // Per run: letter-spaced runs on pages that are otherwise ordinary (the page test above does not fire).
    const j = joinLetterSpacing(out);
    if (j.changed > 0) {
      out = j.items;
      fixed = true;
    }
    if (fixed) repairs.push('letter_spacing');
  }
  let reversed = 0;
  if (enabled.includes('reversed_numbers'))
    out = out.map((i) => {
      if (i.source !== 'text' || !/\d,\d/.test(i.text)) return i;
      const t = i.text.replace(/\d[\d,]*\d/g, (tok) => {
        const f = fixReversedNumber(tok);
        if (f !== tok) reversed++;
        return f;
      });
      return t === i.text ? i : { ...i, text: t };
    });
  if (reversed > 0) repairs.push('reversed_numbers');
  return { items: out, repairs };
}
