// Re-reads: low-confidence words and digit runs cut out, stacked into one strip and read again; pixel boxes
// read on their own for the region reader.
import type { TextItem } from '../layout.ts';
import { grayPixels, type NormalisedImage } from './image.ts';
import { stackCrops, whitenRules, type Crop } from './crops.ts';

/** A word is read again when its confidence is below this (it is what the layout stage and merging trust). */
export const REREAD_BELOW = 0.6;
/**
 * A word of four digits or more (a policy number, a limit, a date) is read again below this: on a scan the
 * first reading of a small number among rules takes a glyph twice ("60839057" at 0.73 for 6089057, which
 * the same engine reads at 0.95 cut out on its own).
 */
export const REREAD_DIGITS_BELOW = 0.85;
/** A reread replaces a word only with at least this confidence. */
export const REREAD_MIN_CONF = 0.6;

/** Where each reread unit sits in the strip (pixels) and where it came from in the page image (pixels). */
export interface RereadSlot {
  /** The unit's words: their places in the page's words (its lines, flattened). */
  indices: number[];
  /** The unit's own box in the strip: words read again count only with their centre in it. */
  top: number;
  bottom: number;
  left: number;
  right: number;
  /** Offset from strip pixels to page-image pixels. */
  dx: number;
  dy: number;
  /** Mean confidence of the unit's first reading. */
  conf: number;
}

interface PxBox {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/**
 * The weak words of a page (confidence below REREAD_BELOW, at least three letters or digits, text-high) cut
 * from the page image and stacked one per line in a strip image, to be read again:
 * - weak words that overlap or touch on a line are one unit (the engine split one value, "T050.000" over
 *   ",000,"), read as one;
 * - a unit grows sideways over ink no word covers (the "1," and "000" the engine left out of ",000,");
 * - in its cut-out, the rules crossing it (a column or row inked nearly all through: a box border the engine
 *   read into the word, "|02/05/2023" at 0.06) and other words reaching in are whitened.
 * Undefined when the page has no weak word.
 */
export function rereadStrip(img: NormalisedImage, words: TextItem[]): (NormalisedImage & { slots: RereadSlot[] }) | undefined {
  const px = grayPixels(img);
  const s = img.ptPerPx;
  const W = img.width;
  const H = img.height;
  const heights = words.map((w) => w.h / s).sort((a, b) => a - b);
  const typical = heights[Math.floor(heights.length / 2)] ?? 0;
  const boxOf = (w: TextItem): PxBox => ({
    x0: Math.max(0, Math.floor(w.x / s)),
    y0: Math.max(0, Math.floor(w.y / s)),
    x1: Math.min(W, Math.ceil((w.x + w.w) / s)),
    y1: Math.min(H, Math.ceil((w.y + w.h) / s)),
  });
  const boxes = words.map(boxOf);
  const weak = words
    .map((_, i) => i)
    .filter((i) => {
      const w = words[i];
      const hp = boxes[i].y1 - boxes[i].y0;
      const conf = w.conf ?? 1;
      const digits = (w.text.match(/\d/g) ?? []).length;
      return (
        (conf < REREAD_BELOW || (digits >= 4 && conf < REREAD_DIGITS_BELOW)) &&
        (w.text.match(/[A-Za-z0-9]/g) ?? []).length >= 3 &&
        hp >= typical * 0.5 &&
        hp <= typical * 2.5
      );
    });
  if (weak.length === 0) return undefined;
  // Units: weak words whose boxes overlap, or sit side by side on a line closer than a third of their height.
  const units: number[][] = [];
  const near = (a: PxBox, b: PxBox) => {
    const h = Math.min(a.y1 - a.y0, b.y1 - b.y0);
    const vOverlap = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
    const hGap = Math.max(a.x0, b.x0) - Math.min(a.x1, b.x1);
    return vOverlap > 0 && (hGap < 0 ? true : vOverlap >= h * 0.5 && hGap < h * 0.33);
  };
  for (const i of weak) {
    const joined = units.filter((u) => u.some((j) => near(boxes[i], boxes[j])));
    const merged = [i, ...joined.flat()];
    for (const u of joined) units.splice(units.indexOf(u), 1);
    units.push(merged);
  }
  const isInk = (x: number, y: number) => px[y * W + x] < 150;
  const crops: (Crop & { unit: number[]; own: PxBox })[] = [];
  for (const unit of units) {
    const own: PxBox = {
      x0: Math.min(...unit.map((i) => boxes[i].x0)),
      y0: Math.min(...unit.map((i) => boxes[i].y0)),
      x1: Math.max(...unit.map((i) => boxes[i].x1)),
      y1: Math.max(...unit.map((i) => boxes[i].y1)),
    };
    const hp = own.y1 - own.y0;
    const others = boxes.filter((_, i) => !unit.includes(i));
    const covered = (x: number, y: number) => others.some((b) => x >= b.x0 && x < b.x1 && y >= b.y0 && y < b.y1);
    // Columns beside the unit with ink no other word covers (not a rule through the whole band) join it.
    const freeInk = (x: number) => {
      let n = 0;
      let free = false;
      for (let y = own.y0; y < own.y1; y++)
        if (isInk(x, y)) {
          n++;
          if (!covered(x, y)) free = true;
        }
      return n > 0 && n < hp * 0.8 && free;
    };
    const blocked = (x: number) => others.some((b) => x >= b.x0 && x < b.x1 && b.y0 < own.y1 - hp * 0.3 && b.y1 > own.y0 + hp * 0.3);
    for (const dir of [-1, 1]) {
      let x = dir < 0 ? own.x0 - 1 : own.x1;
      let last = x - dir;
      const limit = Math.round(hp * 6);
      for (let k = 0; k < limit && x >= 0 && x < W && !blocked(x); k++, x += dir) {
        if (freeInk(x)) last = x;
        else if (Math.abs(x - last) > hp * 0.5) break;
      }
      if (dir < 0) own.x0 = Math.min(own.x0, last);
      else own.x1 = Math.max(own.x1, last + 1);
    }
    const padX = Math.round(hp * 0.5);
    const padY = Math.round(hp * 0.45);
    const x0 = Math.max(0, own.x0 - padX);
    const y0 = Math.max(0, own.y0 - padY);
    const x1 = Math.min(W, own.x1 + padX);
    const y1 = Math.min(H, own.y1 + padY);
    const cw = x1 - x0;
    const ch = y1 - y0;
    if (cw < 4 || ch < 4) continue;
    const data = new Uint8Array(cw * ch);
    for (let y = 0; y < ch; y++) data.set(px.subarray((y0 + y) * W + x0, (y0 + y) * W + x1), y * cw);
    // Other words reaching into the cut-out (the line above or below, a neighbour on the line) are whitened
    // outside the unit's own box: only the unit is read again.
    for (const b of others) {
      const ox0 = Math.max(0, b.x0 - x0);
      const oy0 = Math.max(0, b.y0 - y0);
      const ox1 = Math.min(cw, b.x1 - x0);
      const oy1 = Math.min(ch, b.y1 - y0);
      if (ox0 >= ox1 || oy0 >= oy1) continue;
      for (let y = oy0; y < oy1; y++)
        for (let x = ox0; x < ox1; x++) if (x + x0 < own.x0 || x + x0 >= own.x1 || y + y0 < own.y0 || y + y0 >= own.y1) data[y * cw + x] = 255;
    }
    whitenRules(data, cw, ch);
    crops.push({ data, w: cw, h: ch, x0, y0, unit, own });
  }
  if (crops.length === 0) return undefined;
  const strip = stackCrops(crops, Math.max(20, Math.round(typical)), Math.max(20, Math.round(typical * 1.2)));
  const slots: RereadSlot[] = crops.map((c, k) => {
    const { dx, dy } = strip.placed[k];
    return {
      indices: c.unit,
      top: c.own.y0 - dy,
      bottom: c.own.y1 - dy,
      left: c.own.x0 - dx,
      right: c.own.x1 - dx,
      dx,
      dy,
      conf: c.unit.reduce((a, i) => a + (words[i].conf ?? 0), 0) / c.unit.length,
    };
  });
  return { ...strip.img, slots };
}

const inside = (v: number, lo: number, hi: number) => v >= lo && v < hi;
type Box = { x: number; y: number; w: number; h: number };
const overlapArea = (a: Box, b: Box) =>
  Math.max(0, Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x)) * Math.max(0, Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y));

/** Engine line numbers given to reread words that came back on a line of their own (a label under a label). */
let nextLine = 1_000_000;

/**
 * Put the strip's words back: each slot's words (in strip pixels) replace the unit they were cut from,
 * positioned in page points, when they were read with more confidence (at least REREAD_MIN_CONF on average).
 * Words of the strip line nearest the unit keep its engine line; words of another strip line (a two-line
 * caption the first reading ran together) get a line of their own. Returns the number of units replaced.
 */
export function applyReread(lines: TextItem[][], strip: { slots: RereadSlot[] }, again: TextItem[], ptPerPx: number): number {
  const flat = lines.flat();
  const replace = new Map<TextItem, TextItem[]>();
  for (const slot of strip.slots) {
    const got = again
      .filter((a) => inside(a.x + a.w / 2, slot.left, slot.right) && inside(a.y + a.h / 2, slot.top, slot.bottom) && /[A-Za-z0-9$]/.test(a.text))
      .sort((a, b) => a.x - b.x);
    if (got.length === 0) continue;
    const conf = got.reduce((a, g) => a + (g.conf ?? 0), 0) / got.length;
    if (conf < REREAD_MIN_CONF || conf <= slot.conf) continue;
    const unit = slot.indices.map((i) => flat[i]);
    const old = unit[0];
    const toPage = (g: TextItem): Box => ({ x: (g.x + slot.dx) * ptPerPx, y: (g.y + slot.dy) * ptPerPx, w: g.w * ptPerPx, h: g.h * ptPerPx });
    // A word the first pass already has elsewhere (its box reached into this one's) is not added twice.
    const fresh = got.filter((g) => {
      const b = toPage(g);
      return !flat.some((o) => !unit.includes(o) && overlapArea(o, b) >= 0.5 * b.w * b.h);
    });
    if (fresh.length === 0) continue;
    const oldMid = unit.reduce((a, w) => a + w.y + w.h / 2, 0) / unit.length;
    const stripLines = [...new Set(fresh.map((g) => g.line))];
    const midOf = (l: number | undefined) => {
      const ws = fresh.filter((g) => g.line === l).map(toPage);
      return ws.reduce((a, b) => a + b.y + b.h / 2, 0) / ws.length;
    };
    const main = stripLines.reduce((a, b) => (Math.abs(midOf(b) - oldMid) < Math.abs(midOf(a) - oldMid) ? b : a));
    const lineOf = new Map(stripLines.map((l) => [l, l === main ? old.line : old.line === undefined ? undefined : nextLine++]));
    replace.set(
      old,
      fresh.map((g) => ({ ...old, ...toPage(g), text: g.text, conf: g.conf, line: lineOf.get(g.line) })),
    );
    for (const w of unit.slice(1)) replace.set(w, []);
  }
  for (const l of lines)
    for (let i = l.length - 1; i >= 0; i--) {
      const r = replace.get(l[i]);
      if (r) l.splice(i, 1, ...r);
    }
  return strip.slots.filter((sl) => replace.has(flat[sl.indices[0]]) && replace.get(flat[sl.indices[0]])!.length > 0).length;
}
