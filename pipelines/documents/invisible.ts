// Text that is in the text layer but not on the rendered page: never reported. Four cases:
//  - off the page: a run placed outside the page box (free to check, from the run's own position);
//  - too small to read: under 2 pt (tracking codes printed at 1 pt along a page edge, e.g. a carrier's
//    "…POLWHITEFONT" line), also free to check;
//  - invisible render mode (`3 Tr`, `7 Tr`), unless the page is a scan with an OCR layer over its image;
//  - white fill on a white page (`1 g`, `1 1 1 rg`, `0 0 0 0 k` before the text), unless the text sits on
//    a filled non-white shape or an image (white headings on a dark bar are visible).
// Render mode and fill colour are not in pdf.js's text content, only in its operator list, which costs about
// as much again as the text itself; so the operator list is only read for documents whose content streams
// show text in white or in an invisible mode (a cheap scan of the raw streams; encrypted files, whose
// streams cannot be read raw, are always checked).
import zlib from 'node:zlib';
import type { TextItem } from './layout.ts';

/** Operator numbers of pdf.js (`OPS`), the ones read here. */
export interface PdfOps {
  save: number;
  restore: number;
  transform: number;
  setTextRenderingMode: number;
  setFillRGBColor: number;
  setFillTransparent?: number;
  showText: number;
  showSpacedText: number;
  nextLineShowText: number;
  nextLineSetSpacingShowText: number;
  constructPath: number;
  fill: number;
  eoFill: number;
  fillStroke: number;
  eoFillStroke: number;
  closeFillStroke: number;
  closeEOFillStroke: number;
  paintImageXObject: number;
  paintInlineImageXObject: number;
  paintFormXObjectBegin: number;
  paintFormXObjectEnd: number;
}

const WHITE_GRAY = /^(?:1(?:\.0*)?|\.9[89]\d*|0?\.9[89]\d*)$/;
const isWhiteNum = (s: string | undefined) => s !== undefined && WHITE_GRAY.test(s);
const isZeroNum = (s: string | undefined) => s !== undefined && /^(?:0(?:\.0*)?|\.0+|0?\.0[0-2]\d*)$/.test(s);

/**
 * Whether one decoded content stream shows text while the fill is white or the render mode invisible. A
 * rough tokenizer (strings are not skipped), so it may say yes wrongly, which only costs the exact check.
 */
export function contentHidesText(content: string): boolean {
  // Quick rejection (native regex scans): no text, or no white colour and no render mode at all.
  if (!/\bBT\b/.test(content) || !QUICK_SUSPECT.test(content)) return false;
  let white = false;
  let mode = 0;
  const stack: [boolean, number][] = [];
  // Only the operators that matter are matched, their operands read back from there, so path data costs no
  // JS work (a regex that also matched the operands backtracked at every number: 70% of the scan).
  const re = /\b(g|rg|k|sc|scn|Tr|q|Q|Tj|TJ)\b|\)\s*'/g;
  for (let m = re.exec(content); m; m = re.exec(content)) {
    const op = m[1];
    if (op && op !== 'q' && op !== 'Q' && op !== 'Tj' && op !== 'TJ') {
      const before = content.slice(Math.max(0, m.index - 64), m.index);
      const nums = (before.match(/(?:[-+]?(?:\d+\.?\d*|\.\d+)\s+){1,4}$/)?.[0] ?? '').trim().split(/\s+/).filter(Boolean);
      const n = nums.length;
      const lastWhite = (k: number) => n >= k && nums.slice(-k).every(isWhiteNum);
      const lastZero = (k: number) => n >= k && nums.slice(-k).every(isZeroNum);
      switch (op) {
        case 'g':
          white = lastWhite(1);
          break;
        case 'rg':
          white = lastWhite(3);
          break;
        case 'k':
          white = lastZero(4);
          break;
        case 'sc':
        case 'scn':
          white = n === 4 ? lastZero(4) : n > 0 && lastWhite(Math.min(n, 3));
          break;
        case 'Tr':
          mode = Number(nums[n - 1] ?? 0);
          break;
      }
    } else if (op === 'q') stack.push([white, mode]);
    else if (op === 'Q') [white, mode] = stack.pop() ?? [false, 0];
    else if (mode === 3 || mode === 7 || (white && mode !== 1 && mode !== 5)) return true;
  }
  return false;
}

/** Some white fill (gray, RGB or spaces of either, CMYK) or a render mode operator. */
const QUICK_SUSPECT = /(?:1(?:\.0*)?|0?\.9[89]\d*)\s+(?:g|rg|sc|scn)\b|(?:^|\s)0(?:\.0*)?\s+k\b|\bTr\b/;

const SKIP_STREAM =
  /\/Subtype\s*\/(?:Image|Type1C|CIDFontType0C|OpenType|XML)|\/Type\s*\/(?:XRef|ObjStm|EmbeddedFile|Metadata)|\/Length[123]\b|\/N\s+[134]\b|\/(?:FunctionType|ShadingType)\b/;

/** Whether any content stream of the file may hide text (or cannot be read raw: encrypted, unusual filters). */
export function mayHideText(bytes: Uint8Array): boolean {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.includes('/Encrypt')) return true;
  let at = 0;
  for (;;) {
    const s = b.indexOf('stream', at, 'latin1');
    if (s < 0) return false;
    at = s + 6;
    if (s >= 3 && b.toString('latin1', s - 3, s) === 'end') continue;
    let start = s + 6;
    if (b[start] === 0x0d) start++;
    if (b[start] === 0x0a) start++;
    const end = b.indexOf('endstream', start, 'latin1');
    if (end < 0) return false;
    at = end + 9;
    const dictStart = Math.max(0, b.lastIndexOf('obj', s, 'latin1'));
    const dict = b.toString('latin1', dictStart, s);
    if (SKIP_STREAM.test(dict)) continue;
    const filters = dict.match(/\/Filter\s*(\[[^\]]*\]|\/\w+)/)?.[1] ?? '';
    const names = filters.match(/\/\w+/g) ?? [];
    let data: Buffer;
    if (names.length === 0) data = b.subarray(start, end);
    else if (names.length === 1 && names[0] === '/FlateDecode') {
      try {
        // Capped: a stream inflating past 64 MB (a bomb) is left to pdf.js and the exact check.
        data = zlib.inflateSync(b.subarray(start, end), { finishFlush: zlib.constants.Z_SYNC_FLUSH, maxOutputLength: 64 * 1024 * 1024 });
      } catch {
        return true; // corrupt or too large: pdf.js may still read it; check exactly
      }
    } else return true;
    if (contentHidesText(data.toString('latin1'))) return true;
  }
}

/** A PDF transformation matrix [a b c d e f] and its product (also used by missing_text.ts). */
export type Matrix = [number, number, number, number, number, number];
export const mul = (m: Matrix, n: Matrix): Matrix => [
  m[0] * n[0] + m[1] * n[2],
  m[0] * n[1] + m[1] * n[3],
  m[2] * n[0] + m[3] * n[2],
  m[2] * n[1] + m[3] * n[3],
  m[4] * n[0] + m[5] * n[2] + n[4],
  m[4] * n[1] + m[5] * n[3] + n[5],
];
const apply = (m: Matrix, x: number, y: number): [number, number] => [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];

interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}
function boxOf(m: Matrix, x0: number, y0: number, x1: number, y1: number): Box {
  const pts = [apply(m, x0, y0), apply(m, x1, y0), apply(m, x0, y1), apply(m, x1, y1)];
  return {
    x0: Math.min(...pts.map((p) => p[0])),
    y0: Math.min(...pts.map((p) => p[1])),
    x1: Math.max(...pts.map((p) => p[0])),
    y1: Math.max(...pts.map((p) => p[1])),
  };
}

const WHITE_HEX = /^#(?:f[a-f0-9]){3}$/i;

export interface OperatorList {
  fnArray: number[];
  argsArray: unknown[];
}

/**
 * Which text items a page does not show, from its operator list: the characters of every text-showing
 * operator, each marked hidden or not, are aligned in order with the characters of the text items (pdf.js
 * builds both from the same operators). `toViewport` maps PDF user space to the items' coordinates.
 */
export function hiddenItems(ops: PdfOps, list: OperatorList, items: TextItem[], toViewport: (x: number, y: number) => [number, number]): Set<TextItem> {
  const chars: string[] = [];
  const hidden: (0 | 1 | 2)[] = []; // 0 shown, 1 invisible mode, 2 white fill
  const backgrounds: Box[] = [];
  let bigImage = false;
  let ctm: Matrix = [1, 0, 0, 1, 0, 0];
  let white = false;
  let mode = 0;
  const stack: [Matrix, boolean, number][] = [];
  const fillOps = new Set([ops.fill, ops.eoFill, ops.fillStroke, ops.eoFillStroke, ops.closeFillStroke, ops.closeEOFillStroke]);
  for (let i = 0; i < list.fnArray.length; i++) {
    const fn = list.fnArray[i];
    const args = list.argsArray[i] as unknown[] | null;
    if (fn === ops.save) stack.push([ctm, white, mode]);
    else if (fn === ops.restore) [ctm, white, mode] = stack.pop() ?? [[1, 0, 0, 1, 0, 0], false, 0];
    else if (fn === ops.transform && args) ctm = mul(args as Matrix, ctm);
    else if (fn === ops.paintFormXObjectBegin && args) {
      stack.push([ctm, white, mode]);
      if (Array.isArray(args[0]) && args[0].length === 6) ctm = mul(args[0] as Matrix, ctm);
    } else if (fn === ops.paintFormXObjectEnd) [ctm, white, mode] = stack.pop() ?? [[1, 0, 0, 1, 0, 0], false, 0];
    else if (fn === ops.setFillRGBColor && args) white = typeof args[0] === 'string' && WHITE_HEX.test(args[0]);
    else if (fn === ops.setFillTransparent) white = false;
    else if (fn === ops.setTextRenderingMode && args) mode = Number(args[0]);
    else if (fn === ops.constructPath && args) {
      const minMax = args[2] as ArrayLike<number> | null;
      if (fillOps.has(args[0] as number) && !white && minMax && Number.isFinite(minMax[0]))
        backgrounds.push(boxOf(ctm, minMax[0], minMax[1], minMax[2], minMax[3]));
    } else if (fn === ops.paintImageXObject || fn === ops.paintInlineImageXObject) {
      const box = boxOf(ctm, 0, 0, 1, 1);
      backgrounds.push(box);
      if ((box.x1 - box.x0) * (box.y1 - box.y0) > 100_000) bigImage = true; // a third of a Letter page or more
    } else if ((fn === ops.showText || fn === ops.showSpacedText || fn === ops.nextLineShowText || fn === ops.nextLineSetSpacingShowText) && args) {
      const glyphs = args[args.length - 1];
      if (!Array.isArray(glyphs)) continue;
      const h: 0 | 1 | 2 = mode === 3 || mode === 7 ? 1 : white && mode !== 1 && mode !== 5 ? 2 : 0;
      for (const g of glyphs) {
        const u = typeof g === 'object' && g ? (g as { unicode?: string }).unicode : undefined;
        if (!u) continue;
        for (const ch of u.normalize('NFKC').replace(/\s+/g, '')) {
          chars.push(ch);
          hidden.push(h);
        }
      }
    }
  }
  const out = new Set<TextItem>();
  if (!hidden.some((h) => h !== 0)) return out;
  // Align in order: each item's characters are looked for just after the previous match.
  let j = 0;
  for (const it of items) {
    if (it.source !== 'text') continue;
    const text = it.text.normalize('NFKC').replace(/\s+/g, '');
    let matched = 0;
    let invisible = 0;
    let whiteFill = 0;
    for (const ch of text) {
      let k = j;
      const limit = Math.min(chars.length, j + 64);
      while (k < limit && chars[k] !== ch) k++;
      if (k >= limit) continue;
      matched++;
      if (hidden[k] === 1) invisible++;
      else if (hidden[k] === 2) whiteFill++;
      j = k + 1;
    }
    if (matched === 0 || matched < text.length / 2) continue;
    if (invisible / matched >= 0.8 && !bigImage) out.add(it);
    else if ((whiteFill + invisible) / matched >= 0.8 && whiteFill > 0) {
      // White text is visible on a filled shape or an image under it.
      const cx = it.x + it.w / 2;
      const cy = it.y + it.h / 2;
      const onSomething = backgrounds.some((b) => {
        const [ax, ay] = toViewport(b.x0, b.y0);
        const [bx, by] = toViewport(b.x1, b.y1);
        return cx >= Math.min(ax, bx) - 1 && cx <= Math.max(ax, bx) + 1 && cy >= Math.min(ay, by) - 1 && cy <= Math.max(ay, by) + 1;
      });
      if (!onSomething) out.add(it);
    }
  }
  return out;
}

/** Text smaller than this (points, as drawn) cannot be read on the page. */
export const MIN_READABLE_PT = 2;

/** Runs placed entirely outside the page box, or drawn too small to read. */
export function unreadable(items: TextItem[], width: number, height: number): Set<TextItem> {
  const out = new Set<TextItem>();
  for (const it of items) {
    if (it.source !== 'text') continue;
    if (it.h < MIN_READABLE_PT || it.x + it.w <= 0 || it.x >= width || it.y + it.h <= 0 || it.y >= height) out.add(it);
  }
  return out;
}
