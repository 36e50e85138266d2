// Gray cut-outs of a page image: stacked into one image to read in one pass, with rules (not glyphs) whitened.
import type { NormalisedImage } from './image.ts';

/** A gray cut-out of a page image (pixels), and where it was cut from. */
export interface Crop {
  data: Uint8Array;
  w: number;
  h: number;
  x0: number;
  y0: number;
}

/**
 * Cut-outs stacked one under another on white (left-aligned at `margin`, `gap` apart): one image read in one
 * engine call. Each cut-out's placement: its top row in the strip, and the offset from strip pixels back to
 * page-image pixels.
 */
export function stackCrops(
  crops: Crop[],
  margin: number,
  gap: number,
): { img: NormalisedImage; placed: { top: number; bottom: number; dx: number; dy: number }[] } {
  const width = Math.max(...crops.map((c) => c.w)) + 2 * margin;
  const height = crops.reduce((a, c) => a + c.h + gap, margin);
  const out = new Uint8Array(width * height).fill(255);
  const placed: { top: number; bottom: number; dx: number; dy: number }[] = [];
  let y = margin;
  for (const c of crops) {
    for (let r = 0; r < c.h; r++) out.set(c.data.subarray(r * c.w, (r + 1) * c.w), (y + r) * width + margin);
    placed.push({ top: y, bottom: y + c.h, dx: c.x0 - margin, dy: c.y0 - y });
    y += c.h + gap;
  }
  const header = Buffer.from(`P5\n${width} ${height}\n255\n`, 'latin1');
  return { img: { pgm: Buffer.concat([header, out]), width, height, ptPerPx: 1 }, placed };
}

/** Whiten columns and rows of a small gray cut-out that are inked through nearly all of it (rules, not glyphs). */
export function whitenRules(data: Uint8Array, w: number, h: number, ink = 150) {
  const cols: number[] = [];
  for (let x = 0; x < w; x++) {
    let n = 0;
    for (let y = 0; y < h; y++) if (data[y * w + x] < ink) n++;
    if (n >= h * 0.8) cols.push(x);
  }
  const rows: number[] = [];
  for (let y = 0; y < h; y++) {
    let n = 0;
    for (let x = 0; x < w; x++) if (data[y * w + x] < ink) n++;
    if (n >= w * 0.8) rows.push(y);
  }
  // A rule's anti-aliased fringe goes with it.
  for (const x of cols) for (let y = 0; y < h; y++) for (const k of [x - 1, x, x + 1]) if (k >= 0 && k < w) data[y * w + k] = 255;
  for (const y of rows) for (const k of [y - 1, y, y + 1]) if (k >= 0 && k < h) data.fill(255, k * w, (k + 1) * w);
}
