// The crop of a rendered page around the words a value was read from: the lines holding the start and the end of
// the quoted clause (the page's text positions say where they are), with a line of context above and below, as
// wide as those lines.
import sharp from 'sharp';
import type { PageText } from '../documents/layout.ts';

/** Words compared when looking for a quote on a page (its first and last few). */
const ANCHOR_WORDS = 4;
/** Whole lines of context kept above and below the quoted lines. */
const CONTEXT_LINES = 1;
/** Margin around the kept lines, in line heights. */
const MARGIN_LINES = 0.4;

const words = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9$]+/g, ' ')
    .trim()
    .split(' ')
    .filter(Boolean);

/** The box (page units, from the top-left) of the lines a quote spans on a page, or null when it is not found. */
export function quoteBox(page: PageText, quote: string): { x: number; y: number; w: number; h: number } | null {
  const q = words(quote);
  if (q.length === 0 || page.lines.length === 0) return null;
  const lineWords = page.lines.map((l) => words(l.text).join(' '));
  const head = q.slice(0, Math.min(ANCHOR_WORDS, q.length)).join(' ');
  const tail = q.slice(-Math.min(ANCHOR_WORDS, q.length)).join(' ');
  // A quote may start mid-line and wrap: look for its head in a line, or across a line and the next.
  const holds = (i: number, part: string) => lineWords[i].includes(part) || `${lineWords[i]} ${lineWords[i + 1] ?? ''}`.includes(part);
  const first = lineWords.findIndex((_, i) => holds(i, head));
  if (first < 0) return null;
  let last = first;
  for (let i = first; i < Math.min(lineWords.length, first + 40); i++) {
    if (holds(i, tail)) {
      last = lineWords[i].includes(tail) ? i : i + 1;
      break;
    }
  }
  const quoted = page.lines.slice(first, Math.min(last, page.lines.length - 1) + 1);
  const kept = page.lines.slice(Math.max(0, first - CONTEXT_LINES), Math.min(page.lines.length, Math.min(last, page.lines.length - 1) + 1 + CONTEXT_LINES));
  const margin = MARGIN_LINES * Math.max(...quoted.map((l) => l.h), 1);
  const x = Math.max(0, Math.min(...kept.map((l) => l.x)) - margin);
  const y = Math.max(0, Math.min(...kept.map((l) => l.y)) - margin);
  const right = Math.min(page.width, Math.max(...kept.map((l) => l.x + l.w)) + margin);
  const bottom = Math.min(page.height, Math.max(...kept.map((l) => l.y + l.h)) + margin);
  return { x, y, w: right - x, h: bottom - y };
}

/** Crop a rendered page (PNG `pageWidth` units wide in `page`'s coordinates) to the quote, or null when not found. */
export async function cropToQuote(png: Buffer, page: PageText, quote: string): Promise<Buffer | null> {
  const box = quoteBox(page, quote);
  if (!box || page.width <= 0) return null;
  const meta = await sharp(png).metadata();
  const scale = (meta.width ?? 0) / page.width;
  const left = Math.max(0, Math.floor(box.x * scale));
  const top = Math.max(0, Math.floor(box.y * scale));
  const width = Math.min((meta.width ?? 0) - left, Math.ceil(box.w * scale));
  const height = Math.min((meta.height ?? 0) - top, Math.ceil(box.h * scale));
  if (width <= 0 || height <= 0) return null;
  return sharp(png).extract({ left, top, width, height }).png({ compressionLevel: 6 }).toBuffer();
}
