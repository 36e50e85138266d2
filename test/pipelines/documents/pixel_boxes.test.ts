// Boxes of a page image read in one engine call (ocr.ts readPixelBoxes): a box read at twice its size comes back at
// the place and size it has on the page, as the same box read at its own size does.
import test from 'ava';
import sharp from 'sharp';
import { closeDocumentPools } from '../../../pipelines/documents/index.ts';
import { normaliseImage } from '../../../pipelines/documents/ocr.ts';
import { readPixelBoxes } from '../../../pipelines/documents/ocr/boxes.ts';

test.after.always(() => closeDocumentPools());

const PT = 72 / 300; // points per pixel of a 300 dpi image

async function page(): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="2550" height="300"><rect width="100%" height="100%" fill="#fff"/>
<text x="400" y="150" font-family="DejaVu Sans, Arial, sans-serif" font-size="30" fill="#000">Harbor Lantern Supply, LLC</text></svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

test('a box read at twice its size gives its words at their place on the page', async (t) => {
  const img = await normaliseImage(await page(), { dpi: 300 });
  const box = { x0: 380, y0: 110, x1: 900, y1: 170 };
  const [[plain], [big]] = [await readPixelBoxes(img, [box], {}), await readPixelBoxes(img, [{ ...box, scale: 2 }], {})];
  for (const words of [plain, big]) t.deepEqual(words.map((w) => w.text).join(' '), 'Harbor Lantern Supply, LLC');
  for (const [a, b] of plain.map((w, i) => [w, big[i]])) {
    t.true(Math.abs(a.x - b.x) < 1.5 && Math.abs(a.y - b.y) < 1.5, `${a.text}: ${a.x},${a.y} against ${b.x},${b.y}`);
    t.true(Math.abs(a.w - b.w) < 2 && Math.abs(a.h - b.h) < 2, `${a.text}: ${a.w}x${a.h} against ${b.w}x${b.h}`);
  }
  // On the page: "Harbor" starts at x = 400 px.
  t.true(Math.abs(big[0].x - 400 * PT) < 2, `x ${big[0].x}`);
  t.true(Math.abs(big[0].y + big[0].h / 2 - 140 * PT) < 3, `y ${big[0].y}`);
});
