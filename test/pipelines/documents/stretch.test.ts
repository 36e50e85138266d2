import test from 'ava';
import sharp from 'sharp';
import { rasterPdfPage, closeDocumentPools, normaliseImage, grayPixels } from '../../../pipelines/documents/index.ts';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { stretchContrast, stretchPage, ocrImage } from '../../../pipelines/documents/ocr.ts';
import { scanPdfRandom } from '../../../fixtures/scan.ts';
import { removeDust } from '../../../pipelines/documents/ocr/dust.ts';
import { fixture } from './helpers.ts';

test.after.always(() => closeDocumentPools());

/** What sharp's own normalise makes of a gray image: the reference stretchContrast must equal. */
const sharpNormalise = (px: Uint8Array, width: number, height: number) =>
  sharp(px, { raw: { width, height, channels: 1 } })
    .normalise({ lower: 1, upper: 99 })
    .extractChannel(0)
    .raw()
    .toBuffer();

/** A seeded generator, so a failure can be replayed. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** A page-like gray image: paper at a random level, ink (a few per cent) and grey noise, a random darkest/brightest level. */
function page(r: () => number): { px: Uint8Array; width: number; height: number } {
  const width = 200 + Math.floor(r() * 400);
  const height = 200 + Math.floor(r() * 400);
  const px = new Uint8Array(width * height);
  const paper = 180 + Math.floor(r() * 76);
  const ink = Math.floor(r() * 120);
  const inkShare = 0.003 + r() * 0.06;
  const noise = r() * 0.3;
  for (let i = 0; i < px.length; i++) {
    const u = r();
    if (u < inkShare) px[i] = Math.min(255, ink + Math.floor(r() * 40));
    else if (u < inkShare + noise) px[i] = Math.floor(ink + r() * (paper - ink));
    else px[i] = Math.max(0, paper - Math.floor(r() * 6));
  }
  return { px, width, height };
}

test('contrast stretch equals sharp normalise({ lower: 1, upper: 99 }) pixel for pixel, through the probe or the page', async (t) => {
  const r = rng(20261126);
  const paths = { probe: 0, page: 0 };
  for (let k = 0; k < 60; k++) {
    const { px, width, height } = page(r);
    const want = await sharpNormalise(px, width, height);
    const got = Uint8Array.from(px);
    // A probe much smaller than the image, so that the scaled histogram is what is tested.
    paths[await stretchContrast(got, width, height, 20_000)]++;
    const differing = got.reduce((a, v, i) => a + (v !== want[i] ? 1 : 0), 0);
    t.is(differing, 0, `image ${k} (${width}×${height}): ${differing} pixels differ`);
  }
  t.true(paths.probe >= 45, `the probe was used for ${paths.probe} of 60 images`);
});

test('contrast stretch at the edges of its thresholds: ink on either side of 2% (white paper) and of 1/81 (paper at 200)', async (t) => {
  for (const [paper, shares] of [
    [255, [0.0195, 0.0199, 0.02, 0.0201, 0.0205]],
    [200, [0.012, 0.0123, 0.01235, 0.0124, 0.0125]],
  ] as const)
    for (const q of shares) {
      const [width, height] = [1000, 300];
      const px = new Uint8Array(width * height).fill(paper);
      const k = Math.round(q * px.length);
      px.fill(0, 0, k);
      px.fill(100, k, k + 3000);
      const want = await sharpNormalise(px, width, height);
      await stretchContrast(px, width, height, 20_000);
      t.deepEqual([px[0], px[k], px[px.length - 1]], [want[0], want[k], want[px.length - 1]], `paper ${paper}, ink ${q}`);
    }
});

test('a scanned page normalises exactly as sharp alone did (resize, grey, median, normalise in one pipeline), then dust is whitened', async (t) => {
  const raster = await rasterPdfPage(fixture('coi_alpha_scan.pdf'), 1);
  const img = await normaliseImage(raster.data, { pageWidthPt: raster.pageWidth });
  const want = await sharp(raster.data)
    .rotate()
    .flatten({ background: '#ffffff' })
    .resize({ width: img.width, height: img.height, kernel: 'lanczos3' })
    .grayscale()
    .median(3)
    .normalise({ lower: 1, upper: 99 })
    .extractChannel(0)
    .raw()
    .toBuffer();
  // Then dust is whitened (dust.test.ts).
  removeDust(want, img.width, img.height, (img.width / raster.pageWidth) * 72);
  t.true(Buffer.from(grayPixels(img)).equals(want));
});

/** A one-page declarations-like PDF: a few lines of small type, under 1% of the page inked. */
async function sparsePage(font: StandardFonts, size: number): Promise<{ pdf: Uint8Array; words: string[] }> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([612, 792]);
  const f = await doc.embedFont(font);
  const lines = ['Bluewater Mutual Insurance Company', 'Policy Number GL46519658', 'Blue Fin Cafe Inc', '88 Foundry Rd'];
  lines.forEach((s, k) => page.drawText(s, { x: 72, y: 700 - k * 18, size, font: f }));
  return { pdf: await doc.save(), words: lines.join(' ').split(' ') };
}

for (const [font, size, dpi] of [
  [StandardFonts.Courier, 9, 150],
  [StandardFonts.Courier, 9, 200],
  [StandardFonts.Helvetica, 8, 150],
] as const)
  test(`a sparse ${dpi} dpi scan of ${font} ${size} with paper noise is read: the stretch keeps the noise near white`, async (t) => {
    const { pdf, words } = await sparsePage(font, size);
    const spec = { seed: 7, dpi, angle: 0.6, noise: 30, dust: 0, blur: 0, jpegQuality: 75 };
    const raster = await rasterPdfPage(await scanPdfRandom(pdf, spec), 1);
    const img = await normaliseImage(raster.data, { pageWidthPt: raster.pageWidth });
    const px = grayPixels(img);
    // The paper (most of the page) stays white-ish; with the 1st percentile as black point it went mid-grey.
    const sorted = Uint8Array.from(px).sort();
    t.true(sorted[Math.floor(px.length * 0.1)] > 200, `10th percentile ${sorted[Math.floor(px.length * 0.1)]}`);
    const read = (await ocrImage(img)).words.map((w) => w.text).join(' ');
    const found = words.filter((w) => read.includes(w));
    t.true(found.length >= words.length - 2, `read ${found.length} of ${words.length} words: ${read}`);
  });

test('the ink-anchored stretch is taken only where the 1st percentile is paper', async (t) => {
  const [width, height] = [1000, 300];
  for (const [share, want] of [
    [0.004, 'ink'],
    [0.03, 'sharp'],
  ] as const) {
    const r = rng(11);
    const px = new Uint8Array(width * height).map(() => 235 + Math.floor(r() * 20));
    px.fill(20, 0, Math.round(share * px.length));
    const done = await stretchPage(px, width, height);
    t.is(done === 'ink' ? 'ink' : 'sharp', want, `ink share ${share}: ${done}`);
    if (want === 'ink') {
      t.is(px[0], 0);
      t.true(px[px.length - 1] > 200, `paper became ${px[px.length - 1]}`);
    }
  }
});

test('a clean 300 dpi scan whose ink is just over 1% of the page is read: sharp put its black point in the paper, and that stretch is undone', async (t) => {
  // A member certificate as `svc eval --generated` makes it (seed 7790): little noise, paper at 253-255, and
  // sharp's 1st percentile by lightness at 250, which turned the paper grey (206, 159, ...) and OCR read nothing.
  const { renderFreeCertificate } = await import('../../../fixtures/free_certificate.ts');
  const { randomFreeCertificateSpec } = await import('../../../fixtures/free_certificate_random.ts');
  const spec = randomFreeCertificateSpec(7790);
  t.truthy(spec.scan);
  const raster = await rasterPdfPage((await renderFreeCertificate(spec)).pdf, 1);
  const img = await normaliseImage(raster.data, { pageWidthPt: raster.pageWidth });
  const px = grayPixels(img);
  const sorted = Uint8Array.from(px).sort();
  t.true(sorted[Math.floor(px.length * 0.5)] > 240, `paper ${sorted[Math.floor(px.length * 0.5)]}`);
  const read = (await ocrImage(img)).words.map((w) => w.text).join(' ');
  t.true(read.includes('Program Administrator'), read.slice(0, 200));
});
