import test from 'ava';
import { rasterPdfPage, closeDocumentPools, normaliseImage } from '../../../pipelines/documents/index.ts';
import { ocrImage } from '../../../pipelines/documents/ocr.ts';
import { removeDust } from '../../../pipelines/documents/ocr/dust.ts';
import { randomLayoutSpec, renderLayout } from '../../../fixtures/layouts.ts';

test.after.always(() => closeDocumentPools());

test('dust is whitened; the dot of an i, a period, a hyphen beside their letters and a faint word broken in pieces stay', (t) => {
  const [width, height] = [300, 200];
  const px = new Uint8Array(width * height).fill(255);
  const ink = (x: number, y: number, w: number, h: number) => {
    for (let yy = y; yy < y + h; yy++) px.fill(0, yy * width + x, yy * width + x + w);
  };
  ink(50, 50, 5, 30); // a stem (an i)
  ink(50, 42, 5, 5); // its dot, 3 px above
  ink(60, 50, 20, 30); // a letter
  ink(83, 76, 4, 4); // a period 3 px after it
  ink(120, 50, 20, 30); // a letter
  ink(143, 64, 5, 3); // a hyphen
  ink(151, 50, 20, 30); // a letter
  const specks = [
    [200, 150],
    [230, 20],
    [236, 24], // two specks close together are still dust
    [20, 180],
  ];
  for (const [x, y] of specks) ink(x, y, 4, 4);
  // A faint word the scan broke into six small pieces, each a few pixels from the next.
  const pieces = [0, 1, 2, 3, 4, 5].map((k) => [40 + k * 8, 150]);
  for (const [x, y] of pieces) ink(x, y, 4, 5);
  t.is(removeDust(px, width, height, 300), 4);
  for (const [x, y] of specks) t.is(px[(y + 1) * width + x + 1], 255, `speck at ${x},${y}`);
  for (const [x, y] of [[52, 44], [85, 78], [145, 65], ...pieces]) t.is(px[y * width + x], 0, `mark at ${x},${y} kept`);
});

test('a dusty 200 dpi scan of small type is read: dust upscaled past the median no longer breaks its lines', async (t) => {
  // A generated declarations page (two columns, Helvetica 9, scanned at 200 dpi with heavy dust): the insured's
  // lines came back as "Northstar te Co Pam", its caption lost.
  // The page this was found on: its limits table, home office line and period as the generator printed them then
  // (the word spacing tesseract reads the address with is measured over the whole page).
  const spec = { ...randomLayoutSpec(91011), occurrence: { caption: 'Each Occurrence Limit', amount: 1_000_000 }, homeOfficeCity: false, policyBox: false };
  t.like(spec, { font: 'Helvetica', size: 9, scan: { dpi: 200 } });
  const raster = await rasterPdfPage((await renderLayout(spec)).pdf, 1);
  const img = await normaliseImage(raster.data, { pageWidthPt: raster.pageWidth });
  const read = (await ocrImage(img)).words.map((w) => w.text).join(' ');
  for (const want of ['INSURED', 'Northstar Electrical', 'Contractors LLC', '88 Foundry Rd', 'Tulsa, OK 74103'])
    t.true(read.includes(want), `${want} not in: ${read}`);
});
