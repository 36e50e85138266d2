// tesseract.js workers are replaced after a number of pages, or when they finish a page while the process is over its
// memory bound: a worker's WebAssembly memory grows to its largest page and never gives it back.
import test from 'ava';
import sharp from 'sharp';
import { closeOcrPool, normaliseImage, ocrImage, ocrWorkersReplaced } from '../../../pipelines/documents/ocr.ts';

test.after.always(closeOcrPool);

async function smallPage() {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="900" height="160"><rect width="100%" height="100%" fill="white"/>
    <text x="20" y="90" font-family="DejaVu Sans, sans-serif" font-size="48">POLICY 4417</text></svg>`;
  return normaliseImage(await sharp(Buffer.from(svg)).png().toBuffer(), { dpi: 150 });
}

test.serial('a worker is replaced after its page count, and the next page is read by a fresh one', async (t) => {
  const img = await smallPage();
  const engine = { kind: 'tesseract.js' as const, workers: 1, recycleAfterPages: 2 };
  const before = ocrWorkersReplaced();
  const first = await ocrImage(img, { engine, reread: false });
  t.regex(first.words.map((w) => w.text).join(' '), /4417/);
  t.is(ocrWorkersReplaced(), before, 'one page: kept');
  await ocrImage(img, { engine, reread: false });
  t.is(ocrWorkersReplaced(), before + 1, 'two pages: replaced');
  const third = await ocrImage(img, { engine, reread: false });
  t.regex(third.words.map((w) => w.text).join(' '), /4417/, 'the fresh worker reads');
  t.is(ocrWorkersReplaced(), before + 1);
});

test.serial('a worker that finishes a page while the process is over the memory bound is replaced', async (t) => {
  const img = await smallPage();
  // Any process is over 1 MB: every page's worker is replaced, and every page is still read.
  const engine = { kind: 'tesseract.js' as const, workers: 1, recycleAboveRssMb: 1 };
  const before = ocrWorkersReplaced();
  for (let i = 0; i < 2; i++) t.regex((await ocrImage(img, { engine, reread: false })).words.map((w) => w.text).join(' '), /4417/);
  t.is(ocrWorkersReplaced(), before + 2);
});
