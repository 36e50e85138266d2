// Ink that no word covers, read again. On a page whose text layer lacks values (missing_text), the full-page
// OCR is merged with the layer; but tesseract's page segmentation can pass over a short value standing alone
// at the end of a row ("$ 100,000" after "Each Occurrence.........." on a Travelers declaration: the
// full-page reading gives a "§" at 0.59 and nothing else). What is still inked on the page after the merge,
// text-high and not a rule, is cut out, stacked in one strip image and read once more as plain lines of text.
import type { TextItem } from './layout.ts';
import { grayPixels, type NormalisedImage, type OcrOptions } from './ocr.ts';
import { readPixelBoxes } from './ocr/boxes.ts';
import type { Crop } from './ocr/crops.ts';
import { inkRuns } from './ink_runs.ts';

/** Side of the grid cells ink is looked for in, in pixels. */
const CELL = 4;
/** At most this many regions are read again on one page (a bound on the cost of a page full of pictures). */
export const MAX_UNCOVERED_REGIONS = 40;
/** Words read again count only with at least this confidence. */
export const UNCOVERED_MIN_CONF = 0.6;

interface PxBox {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/**
 * Regions of the image (pixels) with ink that none of `items` (page points) covers: connected runs of inked
 * grid cells, text-high (half to two and a half times the words' median height), not thin rules, joined
 * along a line when closer than a word's height.
 */
export function uncoveredRegions(img: NormalisedImage, items: TextItem[]): PxBox[] {
  const px = grayPixels(img);
  const s = img.ptPerPx;
  const gw = Math.ceil(img.width / CELL);
  const gh = Math.ceil(img.height / CELL);
  // A grid of the page's cells: 0 where a cell holds ink, 255 where it is blank (or its ink is covered).
  const ink = new Uint8Array(gw * gh).fill(255);
  for (let y = 0; y < img.height; y++) {
    const row = y * img.width;
    const g = Math.floor(y / CELL) * gw;
    for (let x = 0; x < img.width; x++) if (px[row + x] < 128) ink[g + Math.floor(x / CELL)] = 0;
  }
  const heights = items
    .filter((w) => /[A-Za-z0-9]/.test(w.text))
    .map((w) => w.h / s)
    .sort((a, b) => a - b);
  const typical = heights[Math.floor(heights.length / 2)] ?? 0;
  if (typical < CELL * 2) return [];
  // Words cover their box and a cell around it.
  for (const w of items) {
    const cx0 = Math.max(0, Math.floor(w.x / s / CELL) - 1);
    const cy0 = Math.max(0, Math.floor(w.y / s / CELL) - 1);
    const cx1 = Math.min(gw, Math.ceil((w.x + w.w) / s / CELL) + 1);
    const cy1 = Math.min(gh, Math.ceil((w.y + w.h) / s / CELL) + 1);
    for (let y = cy0; y < cy1; y++) ink.fill(255, y * gw + cx0, y * gw + cx1);
  }
  // Connected runs of the ink left (8-neighbours).
  const parts: PxBox[] = [];
  for (const { x0, y0, x1, y1 } of inkRuns(gw, gh, ink, 1).boxes) {
    const box = { x0: x0 * CELL, y0: y0 * CELL, x1: (x1 + 1) * CELL, y1: (y1 + 1) * CELL };
    const h = box.y1 - box.y0;
    const w = box.x1 - box.x0;
    // A glyph or a few touching ones: text-high, not a long rule, not a specks-only dot.
    if (h >= typical * 0.5 && h <= typical * 2.5 && w <= h * 40) parts.push(box);
  }
  // Glyphs of one value are joined along their line.
  parts.sort((a, b) => a.x0 - b.x0);
  const regions: PxBox[] = [];
  for (const p of parts) {
    const near = regions.find((r) => {
      const overlap = Math.min(r.y1, p.y1) - Math.max(r.y0, p.y0);
      return overlap >= 0.5 * Math.min(r.y1 - r.y0, p.y1 - p.y0) && p.x0 - r.x1 < typical * 1.5;
    });
    if (near) {
      near.x0 = Math.min(near.x0, p.x0);
      near.y0 = Math.min(near.y0, p.y0);
      near.x1 = Math.max(near.x1, p.x1);
      near.y1 = Math.max(near.y1, p.y1);
    } else regions.push({ ...p });
  }
  // A lone glyph-sized blot (a logo's dot, a bullet) is not worth a reading: two characters wide at least.
  return regions.filter((r) => r.x1 - r.x0 >= typical * 0.9).slice(0, MAX_UNCOVERED_REGIONS);
}

/**
 * Read the uncovered ink of a page again (see uncoveredRegions): one engine call over a strip of the regions,
 * each cut out with the words around it whitened. Returns the words read with confidence, in page points;
 * none that overlaps one of `items`.
 */
export async function readUncoveredInk(img: NormalisedImage, items: TextItem[], options: OcrOptions): Promise<TextItem[]> {
  const regions = uncoveredRegions(img, items);
  if (regions.length === 0) return [];
  const s = img.ptPerPx;
  const covered = items.map((w) => ({ x0: w.x / s, y0: w.y / s, x1: (w.x + w.w) / s, y1: (w.y + w.h) / s }));
  const boxes = regions.map((r) => {
    const pad = Math.round((r.y1 - r.y0) * 0.4);
    return { x0: r.x0 - pad, y0: r.y0 - pad, x1: r.x1 + pad, y1: r.y1 + pad };
  });
  // Words the page already has, reaching into a cut-out, are not read twice.
  const whitenCovered = ({ data, w, h, x0, y0 }: Crop) => {
    for (const c of covered) {
      const cx0 = Math.max(0, Math.floor(c.x0) - x0);
      const cy0 = Math.max(0, Math.floor(c.y0) - y0);
      const cx1 = Math.min(w, Math.ceil(c.x1) - x0);
      const cy1 = Math.min(h, Math.ceil(c.y1) - y0);
      for (let y = cy0; y < cy1; y++) if (cx1 > cx0) data.fill(255, y * w + cx0, y * w + cx1);
    }
  };
  const found: TextItem[] = [];
  for (const w of (await readPixelBoxes(img, boxes, options, whitenCovered)).flat()) {
    if ((w.conf ?? 0) < UNCOVERED_MIN_CONF || !/[A-Za-z0-9$]/.test(w.text)) continue;
    const b = { text: w.text, x: w.x, y: w.y, w: w.w, h: w.h, conf: w.conf, source: w.source };
    if (items.some((t) => t.x < b.x + b.w && b.x < t.x + t.w && t.y < b.y + b.h && b.y < t.y + t.h)) continue;
    found.push(b);
  }
  return found;
}
