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
}

export interface InkOperatorList {
  fnArray: number[];
  argsArray: unknown[];
}

/** Whether the file may draw text outside its text layer (image masks, images, Type3 fonts, or objects it hides compressed). */
export function mayDrawText(bytes: Uint8Array): boolean {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return b.includes('/ImageMask') || b.includes('/Type3') || b.includes('/Image') || b.includes('/ObjStm') || b.includes('/Encrypt');
}

type Matrix = [number, number, number, number, number, number];
const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];
const mul = (m: Matrix, n: Matrix): Matrix => [
  m[0] * n[0] + m[1] * n[2],
  m[0] * n[1] + m[1] * n[3],
  m[2] * n[0] + m[3] * n[2],
  m[2] * n[1] + m[3] * n[3],
  m[4] * n[0] + m[5] * n[2] + n[4],
  m[4] * n[1] + m[5] * n[3] + n[5],
];

/** A box in the text items' coordinates (points from the top-left corner). */
export interface InkBox {
  x: number;
  y: number;
  w: number;
  h: number;
  kind: 'mask' | 'image' | 'unmapped';
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
  let ctm: Matrix = IDENTITY;
  const stack: Matrix[] = [];
  const place = (m: Matrix, kind: InkBox['kind']) => {
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
    boxes.push({ x: x0, y: y0, w, h, kind });
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
    else if (fn === ops.paintImageXObject || fn === ops.paintInlineImageXObject) place(ctm, 'image');
    else if (fn === ops.paintImageMaskXObjectGroup && args && Array.isArray(args[0])) {
      for (const img of args[0] as { transform?: number[] }[])
        if (Array.isArray(img?.transform) && img.transform.length === 6) place(mul(img.transform as Matrix, ctm), 'mask');
    } else if (fn === ops.paintImageMaskXObjectRepeat && args) {
      const [, sx, kx, ky, sy, positions] = args as [unknown, number, number, number, number, ArrayLike<number>];
      if (positions) for (let k = 0; k + 1 < positions.length; k += 2) place(mul([sx, kx, ky, sy, positions[k], positions[k + 1]], ctm), 'mask');
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
  return masks >= MIN_UNCOVERED_MASKS || images >= MIN_UNCOVERED_IMAGES || found.unmappedGlyphs >= MIN_UNMAPPED_GLYPHS;
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
