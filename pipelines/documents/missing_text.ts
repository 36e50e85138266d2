// Text drawn on the page but missing from its text layer: glyphs painted as image masks (a Type3-style font
// whose characters are bitmaps, as on Travelers declarations where the limits, deductibles and policy number
// are drawn this way), words placed as small images, or text-showing operators whose glyphs map to no
// character (a font without a usable ToUnicode map). Such a page is sent to OCR, and the OCR words are
// merged with its text layer: text-layer words are kept, OCR words are added only where the layer has none
// (see mergeOcrWords), and the page is marked with the repair `missing_text`.
//
// Decided per page from pdf.js's operator list, which is only read for documents whose raw bytes show image
// masks, images or Type3 fonts (or hide their objects in compressed object streams): a clean page of typed
// text costs one scan of the file's bytes.
import type { TextItem } from './layout.ts';
import { mul, type Matrix } from './invisible.ts';
import { mayContainName } from './decoded.ts';

/** Operator numbers of pdf.js (`OPS`), the ones read here. */
export interface InkOps {
  save: number;
  restore: number;
  transform: number;
  paintFormXObjectBegin: number;
  paintFormXObjectEnd: number;
  paintImageXObject: number;
  paintInlineImageXObject: number;
  paintImageMaskXObject: number;
  paintImageMaskXObjectGroup: number;
  paintImageMaskXObjectRepeat: number;
  showText: number;
  showSpacedText: number;
  nextLineShowText: number;
  nextLineSetSpacingShowText: number;
  /** Path painting (pdf.js 5: `constructPath` carries the painting operator, the path data and its bounds). */
  constructPath?: number;
  fill?: number;
  eoFill?: number;
  fillStroke?: number;
  eoFillStroke?: number;
  closeFillStroke?: number;
  closeEOFillStroke?: number;
}

export interface InkOperatorList {
  fnArray: number[];
  argsArray: unknown[];
}

/** Whether the file may draw text outside its text layer: it has image masks, images or Type3 fonts (or cannot be told). */
export function mayDrawText(bytes: Uint8Array): boolean {
  // `/Image` also finds `/ImageMask`; names inside compressed object streams are looked for there.
  return mayContainName(bytes, ['/Image', '/Type3']);
}

const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];

/** A box in the text items' coordinates (points from the top-left corner). */
export interface InkBox {
  x: number;
  y: number;
  w: number;
  h: number;
  kind: 'mask' | 'image' | 'unmapped' | 'outline';
  /** For an outline: whether its contour has curves (most letters and digits do; rules and boxes do not). */
  curved?: boolean;
  /** For an image: pdf.js's object id (an XObject) or the inline image's data, to look at its pixels. */
  image?: unknown;
}

/** Glyph-sized: a drawn character or a word-high strip, not a logo block, rule or page background. */
const MAX_TEXT_H = 28;
const MIN_TEXT_H = 4;

/** What the page draws that looks like text and that no text item covers, plus text-showing glyphs with no character. */
export function uncoveredInk(
  ops: InkOps,
  list: InkOperatorList,
  items: TextItem[],
  toViewport: (x: number, y: number) => [number, number],
): { boxes: InkBox[]; unmappedGlyphs: number } {
  const boxes: InkBox[] = [];
  let unmappedGlyphs = 0;
  const fills = new Set([ops.fill, ops.eoFill, ops.fillStroke, ops.eoFillStroke, ops.closeFillStroke, ops.closeEOFillStroke].filter((x) => x !== undefined));
  let ctm: Matrix = IDENTITY;
  const stack: Matrix[] = [];
  const place = (m: Matrix, kind: InkBox['kind'], image?: unknown) => {
    const pts = [
      toViewport(m[4], m[5]),
      toViewport(m[0] + m[4], m[1] + m[5]),
      toViewport(m[2] + m[4], m[3] + m[5]),
      toViewport(m[0] + m[2] + m[4], m[1] + m[3] + m[5]),
    ];
    const x0 = Math.min(...pts.map((p) => p[0]));
    const x1 = Math.max(...pts.map((p) => p[0]));
    const y0 = Math.min(...pts.map((p) => p[1]));
    const y1 = Math.max(...pts.map((p) => p[1]));
    const h = y1 - y0;
    const w = x1 - x0;
    if (h < MIN_TEXT_H || h > MAX_TEXT_H || w < 1) return;
    // An image counts only as a strip of text (a word or a line), not as a square logo or a photo.
    if (kind === 'image' && w < h * 2.5) return;
    boxes.push({ x: x0, y: y0, w, h, kind, ...(image !== undefined ? { image } : {}) });
  };
  for (let i = 0; i < list.fnArray.length; i++) {
    const fn = list.fnArray[i];
    const args = list.argsArray[i] as unknown[] | null;
    if (fn === ops.save) stack.push(ctm);
    else if (fn === ops.restore) ctm = stack.pop() ?? IDENTITY;
    else if (fn === ops.transform && args) ctm = mul(args as Matrix, ctm);
    else if (fn === ops.paintFormXObjectBegin && args) {
      stack.push(ctm);
      if (Array.isArray(args[0]) && args[0].length === 6) ctm = mul(args[0] as Matrix, ctm);
    } else if (fn === ops.paintFormXObjectEnd) ctm = stack.pop() ?? IDENTITY;
    else if (fn === ops.paintImageMaskXObject) place(ctm, 'mask');
    else if (fn === ops.paintImageXObject || fn === ops.paintInlineImageXObject) place(ctm, 'image', args?.[0]);
    else if (fn === ops.paintImageMaskXObjectGroup && args && Array.isArray(args[0])) {
      for (const img of args[0] as { transform?: number[] }[])
        if (Array.isArray(img?.transform) && img.transform.length === 6) place(mul(img.transform as Matrix, ctm), 'mask');
    } else if (fn === ops.paintImageMaskXObjectRepeat && args) {
      const [, sx, kx, ky, sy, positions] = args as [unknown, number, number, number, number, ArrayLike<number>];
      if (positions) for (let k = 0; k + 1 < positions.length; k += 2) place(mul([sx, kx, ky, sy, positions[k], positions[k + 1]], ctm), 'mask');
    } else if (fn === ops.constructPath && args && fills.has(args[0] as number)) {
      for (const c of contoursOf(args[1], ctm, toViewport)) {
        const { x0, y0, x1, y1, curved } = c;
        const h = y1 - y0;
        const w = x1 - x0;
        // A glyph's contour: letter-high, no wider than a few letters, not a hairline.
        if (h >= MIN_OUTLINE_H && h <= MAX_TEXT_H && w >= 0.5 && w <= h * 2.5) boxes.push({ x: x0, y: y0, w, h, kind: 'outline', curved });
      }
    } else if ((fn === ops.showText || fn === ops.showSpacedText || fn === ops.nextLineShowText || fn === ops.nextLineSetSpacingShowText) && args) {
      const glyphs = args[args.length - 1];
      if (!Array.isArray(glyphs)) continue;
      for (const g of glyphs) {
        if (typeof g !== 'object' || !g) continue;
        const u = (g as { unicode?: string; isSpace?: boolean }).unicode;
        if ((g as { isSpace?: boolean }).isSpace) continue;
        if (u === undefined || u === '' || /^[\u0000-\u001f\ufffd]+$/.test(u)) unmappedGlyphs++;
      }
    }
  }
  const text = items.filter((t) => t.source === 'text' || t.source === 'acroform');
  const covered = (b: InkBox) => {
    const cx = b.x + b.w / 2;
    const cy = b.y + b.h / 2;
    return text.some((t) => cx >= t.x - 1 && cx <= t.x + t.w + 1 && cy >= t.y - 2 && cy <= t.y + t.h + 2);
  };
  return { boxes: boxes.filter((b) => !covered(b)), unmappedGlyphs };
}

/** A filled contour lower than this (points) is a dot, a hyphen or a speck, not counted as a glyph. */
const MIN_OUTLINE_H = 3;

/**
 * The contours of a path as pdf.js 5 hands it over (`[Float32Array of DrawOPS]`: 0 moveTo, 1 lineTo,
 * 2 curveTo, 3 quadraticCurveTo, 4 closePath), each as its box in viewport points. Contours that overlap
 * (a letter's counter inside its outline, the dot over an i) make one box.
 */
export function contoursOf(
  data: unknown,
  ctm: Matrix,
  toViewport: (x: number, y: number) => [number, number],
): { x0: number; y0: number; x1: number; y1: number; curved: boolean }[] {
  const d = Array.isArray(data) ? data[0] : undefined;
  if (!d || typeof (d as ArrayLike<number>).length !== 'number') return [];
  const a = d as ArrayLike<number>;
  const out: { x0: number; y0: number; x1: number; y1: number; curved: boolean }[] = [];
  let cur: (typeof out)[number] | undefined;
  const at = (x: number, y: number) => {
    const [vx, vy] = toViewport(ctm[0] * x + ctm[2] * y + ctm[4], ctm[1] * x + ctm[3] * y + ctm[5]);
    if (!cur) return;
    if (vx < cur.x0) cur.x0 = vx;
    if (vx > cur.x1) cur.x1 = vx;
    if (vy < cur.y0) cur.y0 = vy;
    if (vy > cur.y1) cur.y1 = vy;
  };
  for (let i = 0; i < a.length && out.length < 20_000;) {
    const op = a[i++];
    if (op === 0) {
      cur = { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity, curved: false };
      out.push(cur);
      at(a[i], a[i + 1]);
      i += 2;
    } else if (op === 1) {
      at(a[i], a[i + 1]);
      i += 2;
    } else if (op === 2) {
      at(a[i + 4], a[i + 5]);
      if (cur) cur.curved = true;
      i += 6;
    } else if (op === 3) {
      at(a[i + 2], a[i + 3]);
      if (cur) cur.curved = true;
      i += 4;
    } else if (op === 4) continue;
    else break;
  }
  // Overlapping contours are one glyph.
  const merged: typeof out = [];
  for (const c of out.filter((c) => Number.isFinite(c.x0))) {
    const m = merged.find((o) => c.x0 < o.x1 && o.x0 < c.x1 && c.y0 < o.y1 && o.y0 < c.y1);
    if (m) {
      m.x0 = Math.min(m.x0, c.x0);
      m.y0 = Math.min(m.y0, c.y0);
      m.x1 = Math.max(m.x1, c.x1);
      m.y1 = Math.max(m.y1, c.y1);
      m.curved ||= c.curved;
    } else merged.push({ ...c });
  }
  return merged;
}

/** Glyph outlines (filled contours, letter-sized, most of them curved) from this many on: the text is drawn as paths. */
export const MIN_OUTLINED_GLYPHS = 30;
/** Of those, at least this share are curved (letters and digits); boxes, ticks and bars are straight. */
export const MIN_CURVED_SHARE = 0.4;

/** Rows of outlined glyphs from this many on: a logo or a heading drawn as paths is one or two. */
export const MIN_OUTLINED_ROWS = 3;

/**
 * Whether filled contours are text drawn as outlines: enough glyph-sized ones (a glyph painted twice, fill then
 * outline, counts once), most of them curved, on several rows — not a logo, tick boxes or a bar code.
 */
export function outlinedText(outlines: InkBox[]): boolean {
  const seen = new Set<string>();
  const glyphs = outlines.filter((b) => {
    const k = `${Math.round(b.x)},${Math.round(b.y)},${Math.round(b.w)},${Math.round(b.h)}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  if (glyphs.length < MIN_OUTLINED_GLYPHS || glyphs.filter((b) => b.curved).length < glyphs.length * MIN_CURVED_SHARE) return false;
  // Rows: glyphs whose bottoms (baselines, near enough) line up; a row counts with three glyphs or more.
  const rows: { y: number; n: number }[] = [];
  for (const b of [...glyphs].sort((a, c) => a.y + a.h - (c.y + c.h))) {
    const bottom = b.y + b.h;
    const row = rows.find((r) => Math.abs(r.y - bottom) <= Math.max(2, b.h * 0.35));
    if (row) row.n++;
    else rows.push({ y: bottom, n: 1 });
  }
  return rows.filter((r) => r.n >= 3).length >= MIN_OUTLINED_ROWS;
}

/** Text-like masks (a word or a character, not a bullet, a tick box or a shaded bar) from this many on: values are drawn, not typed. */
export const MIN_UNCOVERED_MASKS = 6;
/** Strip-shaped images from this many on (one alone is most often a logo or a signature). */
export const MIN_UNCOVERED_IMAGES = 2;
/** Glyphs with no character from this many on. */
export const MIN_UNMAPPED_GLYPHS = 6;

/** Whether the page draws substantial text that its text layer lacks. */
export function hasMissingText(found: { boxes: InkBox[]; unmappedGlyphs: number }): boolean {
  const masks = found.boxes.filter((b) => b.kind === 'mask' && b.h <= 20 && b.w >= b.h && b.w <= 300).length;
  const images = found.boxes.filter((b) => b.kind === 'image').length;
  const outlined = outlinedText(found.boxes.filter((b) => b.kind === 'outline'));
  return masks >= MIN_UNCOVERED_MASKS || images >= MIN_UNCOVERED_IMAGES || found.unmappedGlyphs >= MIN_UNMAPPED_GLYPHS || outlined;
}

/** An image's decoded pixels as pdf.js hands them over (`kind` 1: 1 bit gray, 2: RGB, 3: RGBA). */
export interface ImagePixels {
  width: number;
  height: number;
  kind?: number;
  data?: ArrayLike<number> | null;
}

/**
 * Whether an image shows a line of printed text: in its tallest band of ink rows, at least four separate
 * glyph-wide runs of inked columns that together hold most of the band's ink width. A handwritten signature
 * (strokes joined across letters), a logo, a coloured bar or a drawn frame (one run as wide as the image)
 * does not; a value pasted as a picture ("$ 482,600", "HQ-7730418") does.
 */
export function looksLikeText(img: ImagePixels): boolean {
  const { width: W, height: H, kind, data } = img;
  if (!data || W < 8 || H < 5 || W * H > 16_000_000) return false;
  const bpp = kind === 3 ? 4 : kind === 2 ? 3 : kind === 1 ? 0 : -1;
  if (bpp < 0) return false;
  const stride1 = Math.ceil(W / 8);
  const gray = new Uint8Array(W * H);
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const i = y * W + x;
      if (bpp === 0) gray[i] = (data[y * stride1 + (x >> 3)] >> (7 - (x & 7))) & 1 ? 255 : 0;
      else {
        const o = i * bpp;
        const a = bpp === 4 ? data[o + 3] / 255 : 1;
        const l = 0.299 * data[o] + 0.587 * data[o + 1] + 0.114 * data[o + 2];
        gray[i] = Math.round(l * a + 255 * (1 - a));
      }
    }
  // The background is the commonest gray level (in steps of 16); ink is what differs from it clearly.
  const hist = new Array(16).fill(0);
  for (const g of gray) hist[g >> 4]++;
  const bg = hist.indexOf(Math.max(...hist)) * 16 + 8;
  const ink = (i: number) => Math.abs(gray[i] - bg) > 80;
  const rowInk = new Array(H).fill(0);
  let total = 0;
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++)
      if (ink(y * W + x)) {
        rowInk[y]++;
        total++;
      }
  if (total === 0 || total > 0.5 * W * H) return false;
  // The tallest band of rows with ink (a one-row gap does not end it).
  let best: [number, number] = [0, -1];
  for (let y = 0; y < H;) {
    if (!rowInk[y]) {
      y++;
      continue;
    }
    let end = y;
    while (end + 1 < H && (rowInk[end + 1] || (end + 2 < H && rowInk[end + 2]))) end++;
    if (end - y > best[1] - best[0]) best = [y, end];
    y = end + 1;
  }
  const bandH = best[1] - best[0] + 1;
  if (bandH < 5) return false;
  let runs = 0;
  let narrow = 0;
  let narrowWidth = 0;
  let inkWidth = 0;
  for (let x = 0; x < W;) {
    let on = false;
    for (let y = best[0]; y <= best[1] && !on; y++) on = ink(y * W + x);
    if (!on) {
      x++;
      continue;
    }
    let end = x;
    for (;;) {
      let next = false;
      for (let y = best[0]; y <= best[1] && !next && end + 1 < W; y++) next = ink(y * W + end + 1);
      if (!next) break;
      end++;
    }
    const w = end - x + 1;
    runs++;
    inkWidth += w;
    if (w <= bandH * 1.2) {
      narrow++;
      narrowWidth += w;
    }
    x = end + 1;
  }
  return runs > 0 && narrow >= 4 && narrowWidth >= 0.6 * inkWidth;
}

/**
 * Keeps only the image boxes whose pixels look like printed text (see looksLikeText); an image whose
 * pixels cannot be had is kept, as before this check.
 */
export async function keepTextImages(
  found: { boxes: InkBox[]; unmappedGlyphs: number },
  pixels: (image: unknown) => Promise<ImagePixels | undefined>,
): Promise<{ boxes: InkBox[]; unmappedGlyphs: number }> {
  const boxes: InkBox[] = [];
  for (const b of found.boxes) {
    if (b.kind !== 'image') boxes.push(b);
    else {
      const img = await pixels(b.image).catch(() => undefined);
      if (!img || looksLikeText(img)) boxes.push(b);
    }
  }
  return { boxes, unmappedGlyphs: found.unmappedGlyphs };
}

/** OCR words below this confidence are left out of a merged page. */
export const MIN_OCR_CONF = 0.6;

const overlaps = (a: { x: number; y: number; w: number; h: number }, b: { x: number; y: number; w: number; h: number }) =>
  a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

/**
 * A label followed by its dot leader ("PROPERTY......" up to the amount) comes back from tesseract as one
 * word whose confidence the dots pull down (to 0.27 or to nothing), though the letters read fine: such a
 * word, letter-high (a leader misread as letters, "cin...", is a point high) and not read as noise
 * outright, is kept as its letters, over their width only, at the confidence threshold.
 */
export function trimLeader(w: TextItem): TextItem {
  const m = /^([A-Za-z][A-Za-z'&/-]{2,}),?\.+:?$/.exec(w.text);
  const conf = w.conf ?? 0;
  if (!m || conf >= MIN_OCR_CONF || w.h < 4 || (conf < LEADER_MIN_CONF && !/\.{2,}/.test(w.text))) return w;
  return { ...w, text: m[1], w: Math.min(w.w, m[1].length * w.h * 0.85), conf: MIN_OCR_CONF };
}
/** A label with one dot after it (the rest of its leader read as another word) needs at least this confidence. */
export const LEADER_MIN_CONF = 0.2;

/**
 * The text layer's items with the OCR words it lacks: an OCR word is added only where no text-layer item
 * is, so typed text is never doubled or replaced.
 */
export function mergeOcrWords(layer: TextItem[], ocr: TextItem[]): TextItem[] {
  const fresh = ocr.map(trimLeader).filter((w) => (w.conf ?? 0) >= MIN_OCR_CONF && /[A-Za-z0-9$]/.test(w.text) && !layer.some((t) => overlaps(t, w)));
  // Engine line numbers of the OCR words do not apply to text-layer items; lines are built by overlap.
  return [...layer.map((t) => ({ ...t, line: undefined })), ...fresh.map((w) => ({ ...w, line: undefined }))];
}
