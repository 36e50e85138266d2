// Form rules (the long thin horizontal and vertical lines of boxed forms such as ACORD certificates) removed
// from a grayscale page image before OCR. Tesseract reads a rule touching a value as a glyph ("|X|", "$" read
// as "3", a limit split off its box) and lets rules join neighbouring cells into one text line; without them
// the words of each box come out on their own. Only long thin runs of ink go: text strokes are short,
// filled areas (redaction boxes, banners behind white text) are thick, and both stay.

export interface FormLineOptions {
  /** Image resolution; lengths below are in inches. */
  dpi: number;
  /** Gray level below which a pixel is ink (0..255). */
  inkBelow?: number;
  /** Shortest horizontal rule removed, inches. */
  minHorizontalIn?: number;
  /** Shortest vertical rule removed, inches (longer than horizontal: tall letters of a logo must stay). */
  minVerticalIn?: number;
  /** Thickest rule removed, inches. */
  maxThicknessIn?: number;
}

/**
 * The runs of set cells among the first `n` of `band`, a run bridging gaps of up to `gap` unset cells: `onRun` is
 * given each run's first and last set cell, in order.
 */
function eachRun(band: Uint8Array, n: number, gap: number, onRun: (start: number, last: number) => void): void {
  let i = 0;
  while (i < n) {
    if (!band[i]) {
      i++;
      continue;
    }
    const start = i;
    let last = i;
    i++;
    while (i < n && i - last <= gap) {
      if (band[i]) last = i;
      i++;
    }
    onRun(start, last);
    i = last + 1;
  }
}

/**
 * Whiten long thin horizontal and vertical rules in place in a one-channel image (`px`, `width` × `height`).
 * Returns the number of pixels whitened.
 */
export function removeFormLines(px: Uint8Array, width: number, height: number, opts: FormLineOptions): number {
  const ink = opts.inkBelow ?? 150;
  const minH = Math.max(20, Math.round((opts.minHorizontalIn ?? 0.4) * opts.dpi));
  const minV = Math.max(20, Math.round((opts.minVerticalIn ?? 0.6) * opts.dpi));
  const maxT = Math.max(2, Math.round((opts.maxThicknessIn ?? 0.04) * opts.dpi));
  // Scan lines are rarely perfect: a run may skip a gap of this many pixels and stay one rule.
  const gap = Math.max(1, Math.round(opts.dpi / 150));
  const mask = new Uint8Array(width * height); // 1: in a horizontal rule, 2: in a vertical rule

  // Horizontal runs, row by row.
  // A slightly skewed rule steps from row to row: a run is followed through the row above and below too.
  const band = new Uint8Array(Math.max(width, height));
  for (let y = 0; y < height; y++) {
    const row = y * width;
    const up = y > 0 ? row - width : row;
    const down = y < height - 1 ? row + width : row;
    for (let x = 0; x < width; x++) band[x] = px[row + x] < ink || px[up + x] < ink || px[down + x] < ink ? 1 : 0;
    eachRun(band, width, gap, (start, last) => {
      if (last - start + 1 >= minH) for (let k = start; k <= last; k++) if (px[row + k] < ink) mask[row + k] |= 1;
    });
  }
  // Vertical runs, column by column.
  for (let x = 0; x < width; x++) {
    const l = x > 0 ? x - 1 : x;
    const r = x < width - 1 ? x + 1 : x;
    for (let y = 0; y < height; y++) {
      const row = y * width;
      band[y] = px[row + x] < ink || px[row + l] < ink || px[row + r] < ink ? 1 : 0;
    }
    eachRun(band, height, gap, (start, last) => {
      if (last - start + 1 >= minV) for (let k = start; k <= last; k++) if (px[k * width + x] < ink) mask[k * width + x] |= 2;
    });
  }
  // Thin only: a horizontal run that is part of a tall stack of such runs is a filled area, not a rule.
  for (let x = 0; x < width; x++) {
    let y = 0;
    while (y < height) {
      if (!(mask[y * width + x] & 1)) {
        y++;
        continue;
      }
      const start = y;
      while (y < height && mask[y * width + x] & 1) y++;
      if (y - start > maxT) for (let k = start; k < y; k++) mask[k * width + x] &= ~1;
    }
  }
  for (let y = 0; y < height; y++) {
    const row = y * width;
    let x = 0;
    while (x < width) {
      if (!(mask[row + x] & 2)) {
        x++;
        continue;
      }
      const start = x;
      while (x < width && mask[row + x] & 2) x++;
      if (x - start > maxT) for (let k = start; k < x; k++) mask[row + k] &= ~2;
    }
  }
  let n = 0;
  for (let i = 0; i < mask.length; i++) {
    const m = mask[i];
    if (!m) continue;
    px[i] = 255;
    n++;
    // The anti-aliased fringe of a rule goes with it: a light (non-ink) neighbour across the rule is whitened.
    if (m & 1) {
      if (i >= width && px[i - width] >= ink) px[i - width] = 255;
      if (i + width < px.length && px[i + width] >= ink) px[i + width] = 255;
    }
    if (m & 2) {
      if (i % width > 0 && px[i - 1] >= ink) px[i - 1] = 255;
      if ((i + 1) % width > 0 && px[i + 1] >= ink) px[i + 1] = 255;
    }
  }
  return n;
}
