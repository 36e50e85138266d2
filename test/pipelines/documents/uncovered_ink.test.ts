// Ink the full-page OCR passed over, read again (uncovered_ink.ts): a value alone at the end of a row is found
// where no word covers it, put back at its place on the page; covered text, rules and specks are not read.
import test from 'ava';
import sharp from 'sharp';
import { closeDocumentPools } from '../../../pipelines/documents/index.ts';
import type { TextItem } from '../../../pipelines/documents/layout.ts';
import { normaliseImage } from '../../../pipelines/documents/ocr.ts';
import { readUncoveredInk, uncoveredRegions } from '../../../pipelines/documents/uncovered_ink.ts';

test.after.always(() => closeDocumentPools());

const PT = 72 / 300; // points per pixel of a 300 dpi image

/** A 300 dpi strip of a declarations page: a row caption, its dot leader, and the amount at the row's end; a rule under it. */
async function row(): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="2550" height="400"><rect width="100%" height="100%" fill="#fff"/>
<text x="200" y="150" font-family="DejaVu Sans, Arial, sans-serif" font-size="36" fill="#000">E  Personal Liability Each Occurrence.........</text>
<text x="2050" y="150" font-family="DejaVu Sans, Arial, sans-serif" font-size="36" fill="#000">$ 482,600</text>
<text x="200" y="230" font-family="DejaVu Sans, Arial, sans-serif" font-size="36" fill="#000">F  Medical Payments to Others</text>
<rect x="200" y="300" width="2150" height="4" fill="#000"/></svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

/** Words as the page already has them (its text layer and the first reading), in points. */
const word = (text: string, x0: number, x1: number, yTop: number): TextItem => ({
  text,
  x: x0 * PT,
  y: yTop * PT,
  w: (x1 - x0) * PT,
  h: 36 * PT,
  conf: 0.95,
  source: 'ocr',
});

test('a value no word covers is read again and placed where it is printed', async (t) => {
  const img = await normaliseImage(await row(), { dpi: 300 });
  const have = [word('E Personal Liability Each Occurrence.........', 195, 1200, 118), word('F Medical Payments to Others', 195, 800, 198)];
  const regions = uncoveredRegions(img, have);
  t.is(regions.length, 1, 'only the amount: not the covered captions, not the rule');
  t.true(regions[0].x0 >= 2000 && regions[0].x1 <= 2300, JSON.stringify(regions));
  const found = await readUncoveredInk(img, have, {});
  const amount = found.find((w) => w.text.includes('482,600'));
  t.truthy(amount, JSON.stringify(found.map((w) => w.text)));
  t.true(Math.abs(amount!.x - 2080 * PT) < 30, `x ${amount!.x}`);
  t.true(Math.abs(amount!.y + amount!.h / 2 - 138 * PT) < 6, `y ${amount!.y}`);
  t.true((amount!.conf ?? 0) >= 0.6);
});

test('a page whose ink is all covered reads nothing again', async (t) => {
  const img = await normaliseImage(await row(), { dpi: 300 });
  const have = [
    word('E Personal Liability Each Occurrence.........', 195, 1200, 118),
    word('$ 482,600', 2045, 2260, 118),
    word('F Medical Payments to Others', 195, 800, 198),
  ];
  t.deepEqual(uncoveredRegions(img, have), []);
  t.deepEqual(await readUncoveredInk(img, have, {}), []);
});
