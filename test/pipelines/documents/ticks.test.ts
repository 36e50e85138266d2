import test from 'ava';
import { PDFDocument, StandardFonts, rgb } from 'pdf-lib';
import sharp from 'sharp';
import { readDocument, readTextLayer, closeDocumentPools, normaliseImage, grayPixels } from '../../../pipelines/documents/index.ts';
import { layoutPage, type TextItem } from '../../../pipelines/documents/layout.ts';
import { tickBoxCandidates, inkInside, type GrayPage } from '../../../pipelines/documents/ticks.ts';
import { boxedMark } from '../../../pipelines/documents/ocr.ts';
import { removeFormLines } from '../../../pipelines/documents/form_lines.ts';

test.after.always(() => closeDocumentPools());

/**
 * The workers' compensation corner of an ACORD 25: "PER" over "STATUTE" with a tick box left of them and an
 * "OTH-ER" box beside; the tick, when `ticked`, is an X drawn with two lines (no text).
 */
async function statutePdf(ticked: boolean, typed = false): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  const top = 792 - 480; // PDF y of the box's top edge (480 pt from the top of the page)
  page.drawText('WORKERS COMPENSATION', { x: 40, y: top - 7, size: 6, font });
  page.drawText('E.L. EACH ACCIDENT', { x: 428, y: top - 30, size: 6, font });
  page.drawText('$ 1,000,000', { x: 530, y: top - 30, size: 7, font });
  // Box borders (0.5 pt), then the labels.
  page.drawRectangle({ x: 427, y: top - 15, width: 14, height: 15, borderColor: rgb(0, 0, 0), borderWidth: 0.5 });
  page.drawRectangle({ x: 478, y: top - 15, width: 14, height: 15, borderColor: rgb(0, 0, 0), borderWidth: 0.5 });
  page.drawText('PER', { x: 443, y: top - 6, size: 6, font });
  page.drawText('STATUTE', { x: 443, y: top - 13, size: 6, font });
  page.drawText('OTH-', { x: 494, y: top - 6, size: 6, font });
  page.drawText('ER', { x: 494, y: top - 13, size: 6, font });
  if (ticked) {
    page.drawLine({ start: { x: 430, y: top - 3 }, end: { x: 438, y: top - 12 }, thickness: 1.2 });
    page.drawLine({ start: { x: 430, y: top - 12 }, end: { x: 438, y: top - 3 }, thickness: 1.2 });
  }
  if (typed) page.drawText('X', { x: 431, y: top - 10, size: 8, font });
  return doc.save();
}

test('a PER STATUTE tick drawn as lines becomes an "X" before its label', async (t) => {
  const d = await readDocument(await statutePdf(true), { ocr: false });
  const p = d.pages[0];
  t.is(p.source, 'text');
  t.deepEqual(p.repairs, ['drawn_ticks']);
  const line = p.lines.find((l) => l.cells.some((c) => c.text === 'PER'))!;
  const i = line.cells.findIndex((c) => c.text === 'PER');
  t.is(line.cells[i - 1]?.text, 'X', line.text);
  t.true(line.cells[i - 1].x > 427 && line.cells[i - 1].x < 441);
  t.regex(p.text, /X {2}PER/);
  // The blocks are rebuilt with the new cell.
  t.true(p.blocks.some((b) => /\bX\b/.test(b.text)));
});

test('an empty tick box adds nothing, and a typed X is left as it is', async (t) => {
  const empty = await readTextLayer(await statutePdf(false), { ocr: false });
  t.is(empty.pages[0].repairs, undefined);
  t.notRegex(empty.pages[0].text, /\bX\b/);
  const typed = await readTextLayer(await statutePdf(false, true), { ocr: false });
  t.is(typed.pages[0].repairs, undefined);
  t.is(typed.pages[0].text.match(/\bX\b/g)?.length, 1);
});

test('the drawn-tick check can be turned off (to measure its cost)', async (t) => {
  const off = await readTextLayer(await statutePdf(true), { repairTextLayer: ['doubled_glyphs'] });
  t.is(off.pages[0].repairs, undefined);
  t.notRegex(off.pages[0].text, /\bX\b/);
});

const it = (text: string, x: number, y: number, w: number, h = 6): TextItem => ({ text, x, y, w, h, source: 'text' });

test('PER PERSON and PER ACCIDENT are limits, not tick boxes', (t) => {
  const page = layoutPage(1, 612, 792, [it('BODILY INJURY', 300, 100, 40), it('PER', 360, 100, 12), it('PERSON', 375, 100, 20)], 'text');
  t.deepEqual(tickBoxCandidates(page), []);
  const ok = layoutPage(1, 612, 792, [it('PER', 443, 480, 12), it('STATUTE', 443, 487, 25)], 'text');
  t.is(tickBoxCandidates(ok).length, 1);
});

/** A white gray image with a square box (borders) at (x, y) of size s, optionally with an X inside. */
function boxImage(width: number, height: number, x: number, y: number, s: number, tick: boolean): GrayPage {
  const px = new Uint8Array(width * height).fill(255);
  const set = (i: number, j: number) => {
    if (i >= 0 && j >= 0 && i < width && j < height) px[j * width + i] = 0;
  };
  for (let k = 0; k <= s; k++) for (const d of [0, 1]) [set(x + k, y + d), set(x + k, y + s - d), set(x + d, y + k), set(x + s - d, y + k)];
  if (tick) for (let k = 4; k <= s - 4; k++) for (const d of [0, 1]) [set(x + k + d, y + k), set(x + s - k + d, y + k)];
  return { px, width, height, ptPerPx: 1 };
}

test('ink inside a box does not count its borders', (t) => {
  const region = { x: 8, y: 8, w: 34, h: 34 };
  t.true(inkInside(boxImage(60, 60, 10, 10, 30, false), region) < 0.01);
  t.true(inkInside(boxImage(60, 60, 10, 10, 30, true), region) > 0.05);
});

test('OCR: a tick read with its box borders is the tick, and a border glued to a word is dropped', (t) => {
  for (const w of ['|X|', '[X', 'X]', '|x', '(X)']) t.is(boxedMark(w), 'X', w);
  t.is(boxedMark('[PER'), 'PER');
  t.is(boxedMark('LIMIT|'), 'LIMIT');
  for (const w of ['X', 'XL', '|', 'A|B', '$1,000,000', 'N/A']) t.is(boxedMark(w), w, w);
});

test('form rules are whitened; text strokes and filled areas stay', async (t) => {
  const width = 600;
  const height = 300;
  const px = new Uint8Array(width * height).fill(255);
  const fill = (x0: number, y0: number, w: number, h: number) => {
    for (let y = y0; y < y0 + h; y++) for (let x = x0; x < x0 + w; x++) px[y * width + x] = 0;
  };
  fill(10, 50, 560, 3); // a horizontal rule, slightly stepped like a skewed scan
  fill(300, 53, 270, 1);
  fill(20, 60, 3, 220); // a vertical rule
  fill(100, 100, 4, 30); // a letter's stem
  fill(100, 100, 25, 4); // its bar
  fill(200, 150, 300, 60); // a redaction box
  const n = removeFormLines(px, width, height, { dpi: 300, minHorizontalIn: 0.4, minVerticalIn: 0.6 });
  t.true(n > 560 * 3 + 220 * 3 - 10);
  t.is(px[51 * width + 200], 255);
  t.is(px[53 * width + 400], 255);
  t.is(px[150 * width + 21], 255);
  t.is(px[110 * width + 101], 0);
  t.is(px[101 * width + 120], 0);
  t.is(px[180 * width + 350], 0);
  t.is(px[150 * width + 200], 0);
  // Through normaliseImage: the option keeps the image size and whitens the rule.
  const png = await sharp(
    Buffer.from(px.map((v, i) => (Math.floor(i / width) >= 20 && Math.floor(i / width) < 23 && i % width > 10 && i % width < 590 ? 0 : v))),
    {
      raw: { width, height, channels: 1 },
    },
  )
    .png()
    .toBuffer();
  const img = await normaliseImage(png, { dpi: 300, pageWidthPt: (width / 300) * 72, removeFormLines: true });
  t.is(img.width, width);
  const gray = grayPixels(img);
  t.true(gray[20 * width + 300] > 200);
  t.true(gray[150 * width + 300] < 100, 'the redaction box stays');
});
