// Image preparation for OCR: EXIF orientation, grayscale, ~300 dpi, contrast and a pixel limit, into an
// uncompressed PGM both engines read as it is.
import sharp from 'sharp';
import { DocumentError } from '../errors.ts';
import { removeFormLines } from '../form_lines.ts';
import { removeDust } from './dust.ts';
import { median3x3 } from './median.ts';

// libvips keeps the last operations and their results for reuse (up to 50 MB by default); every page here is a
// new image, so nothing in that cache is ever reused, and a busy worker held it anyway. Process-wide.
sharp.cache(false);

export interface NormalisedImage {
  /**
   * The image as a binary PGM (8-bit gray, no compression): both engines read it as it is, where a PNG had
   * to be inflated inside tesseract.js's WebAssembly (about a tenth of its time per page).
   */
  pgm: Buffer;
  width: number;
  height: number;
  /** Points per pixel, to put OCR boxes in the page's coordinate space. */
  ptPerPx: number;
}

/** The gray pixels of a normalised image (a view into its PGM), row by row. */
export function grayPixels(img: NormalisedImage): Uint8Array {
  const n = img.width * img.height;
  return new Uint8Array(img.pgm.buffer, img.pgm.byteOffset + img.pgm.byteLength - n, n);
}

/**
 * Normalise a page image for OCR. `pageWidthPt` is the PDF page width when the image is a page of a PDF;
 * for a photo the page is taken to be the image at `dpi`.
 */
export async function normaliseImage(
  input: Uint8Array,
  opts: { dpi?: number; maxInputPixels?: number; pageWidthPt?: number; removeFormLines?: boolean } = {},
): Promise<NormalisedImage> {
  const dpi = opts.dpi ?? 300;
  const limitInputPixels = opts.maxInputPixels ?? 40_000_000;
  try {
    const base = sharp(input, { limitInputPixels, failOn: 'error', pages: 1 }).rotate();
    const meta = await sharp(input, { limitInputPixels, pages: 1 }).metadata();
    const swap = (meta.orientation ?? 1) >= 5;
    const w0 = (swap ? meta.height : meta.width) ?? 0;
    const h0 = (swap ? meta.width : meta.height) ?? 0;
    if (!w0 || !h0) throw new Error('image has no size');
    // Target width: the page at `dpi`; for a photo, a Letter-width page (8.5 in) at `dpi`, capped to 2x up-scaling.
    const targetW = opts.pageWidthPt ? Math.round((opts.pageWidthPt / 72) * dpi) : Math.round(8.5 * dpi);
    let width = Math.min(targetW, w0 * 2);
    if (Math.abs(width - w0) / w0 < 0.1) width = w0; // close enough; avoid a needless resample
    const height = Math.round((h0 * width) / w0);
    const { data: gray, info } = await base
      .flatten({ background: '#ffffff' })
      .resize({ width, height, kernel: 'lanczos3' })
      .grayscale()
      .extractChannel(0)
      .raw()
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 1 || info.width !== width || info.height !== height)
      throw new Error(`unexpected image ${info.width}x${info.height}x${info.channels}`);
    // A 3x3 median removes scanner dust that would otherwise inflate word boxes and join lines (sharp's
    // median(3), pixel for pixel, at a tenth of its CPU).
    const data = median3x3(gray, width, height);
    await stretchPage(data, width, height);
    const pageWidthPt = opts.pageWidthPt ?? (width / dpi) * 72;
    removeDust(data, width, height, (width / pageWidthPt) * 72);
    const header = Buffer.from(`P5\n${width} ${height}\n255\n`, 'latin1');
    const pgm = Buffer.concat([header, data]);
    const img = { pgm, width, height, ptPerPx: pageWidthPt / width };
    if (opts.removeFormLines) removeFormLines(grayPixels(img), width, height, { dpi: (width / pageWidthPt) * 72, minHorizontalIn: 1, minVerticalIn: 1 });
    return img;
  } catch (e) {
    const msg = (e as Error).message;
    if (/pixel limit/i.test(msg)) throw new DocumentError('bad_request', 'image_too_large', 'the image has too many pixels', msg);
    throw new DocumentError('extraction_failed', 'corrupt_image', 'the image could not be decoded', msg);
  }
}

/** Share of the darkest pixels the usual stretch makes black (sharp's `normalise` lower percentile). */
const BLACK_SHARE = 0.01;
/** Darkest pixels taken as the page's ink level (after the median, dust is gone). */
const INK_LEVEL_SHARE = 0.001;

/**
 * Stretch a page's contrast so that its ink is black and its paper white. Usually sharp's 1st–99th percentile
 * stretch (`stretchContrast`). But on a page whose ink covers under 1% of it (a sparse declarations page, a
 * 150 dpi scan of small type) the 1st percentile is paper: stretching from there turns the paper's scanner
 * noise into a field of grey speckles as dark as the text and tesseract reads nothing. There the black point
 * is put halfway into the ink instead (`stretchFrom`), and the noise stays near white. Returns which was done.
 */
export async function stretchPage(px: Uint8Array, width: number, height: number): Promise<'probe' | 'page' | 'ink'> {
  const n = px.length;
  const hist = histogram(px);
  const level = (share: number) => {
    for (let g = 0, c = 0; g < 256; g++) if ((c += hist[g]) >= share * n) return g;
    return 255;
  };
  const ink = level(INK_LEVEL_SHARE);
  const paper = level(0.5);
  const top = level(1 - BLACK_SHARE);
  const mid = (ink + paper) / 2;
  let inkPixels = 0;
  for (let g = 0; g < mid; g++) inkPixels += hist[g];
  const black = level(BLACK_SHARE);
  if (black <= mid || black >= top) {
    // sharp picks its black point from lightness bins: on a clean page whose ink is only just over 1% of it, that
    // point can fall in the paper (gray 250 of 254), and the stretch turns the paper mid-grey, speckled by every
    // level of its noise; tesseract then reads nothing. Such a stretch is undone for the ink-anchored one.
    // (Seen by a light gray nearer the ink than the paper, an anti-aliased edge, made black, and the paper itself
    // made grey.)
    const original = px.slice();
    const done = await stretchContrast(px, width, height, PROBE_PIXELS, hist);
    const light = original.findIndex((g) => g > mid && g <= (mid + paper) / 2);
    const plain = original.indexOf(paper);
    if (light < 0 || px[light] > 0 || px[plain] >= MIN_PAPER || black >= top) return done;
    px.set(original);
  }
  await stretchFrom(px, level(inkPixels / n / 2), top);
  return 'ink';
}

/** The gray level under which a stretched page's paper (its median level) is no longer paper. */
const MIN_PAPER = 224;

/**
 * A linear stretch of CIE lightness (as sharp's `normalise` does it) that makes gray level `lo` and below black
 * and `hi` and above white, in place.
 */
async function stretchFrom(px: Uint8Array, lo: number, hi: number): Promise<void> {
  const l = await grayLightness();
  const [l0, l1] = [l[lo], l[hi]];
  const lut = new Uint8Array(256);
  for (let g = 0, k = 0; g < 256; g++) {
    const want = Math.min(100, Math.max(0, ((l[g] - l0) * 100) / (l1 - l0)));
    // The gray level of that lightness, between the two levels whose lightness brackets it.
    while (k < 255 && l[k + 1] < want) k++;
    const f = k < 255 && l[k + 1] > l[k] ? (want - l[k]) / (l[k + 1] - l[k]) : 0;
    lut[g] = want <= l[0] ? 0 : Math.min(255, Math.round(k + Math.max(0, Math.min(1, f))));
  }
  for (let i = 0; i < px.length; i++) px[i] = lut[px[i]];
}

/** CIE lightness (0-100) of each gray level, as sharp computes it. */
let lightness: Promise<Float32Array> | undefined;
function grayLightness(): Promise<Float32Array> {
  return (lightness ??= (async () => {
    const ramp = Uint8Array.from({ length: 256 }, (_, g) => g);
    const lab = await sharp(ramp, { raw: { width: 256, height: 1, channels: 1 } })
      .toColourspace('lab')
      .raw({ depth: 'float' })
      .toBuffer();
    const f = new Float32Array(lab.buffer, lab.byteOffset, lab.length / 4);
    return Float32Array.from({ length: 256 }, (_, g) => f[g * 3]);
  })());
}

/**
 * sharp's `normalise({ lower: 1, upper: 99 })` of a gray image (`px`, one byte a pixel), in place and pixel for
 * pixel the same, for a fraction of its CPU: sharp converts every pixel to Lab and back (about 0.6 s of CPU on
 * a 300 dpi page, a third of what the OCR engine then spends on it). On a gray image its result depends only
 * on a pixel's level and on the image's histogram: on where the cumulative counts fall against thresholds k/X,
 * X the number of lightness bins (the brightest level's lightness + 1) and k = 1, 2, X-1 or X. So sharp
 * stretches a probe of about `probePixels` pixels whose cumulative counts are the page's scaled down (every
 * level present keeps at least one pixel), and the probe's output for each level is the lookup table for the
 * page. When a scaled count could fall on another side of such a threshold than the page's, the next larger
 * probe is tried, and after the last sharp stretches the page itself. Returns which was done. `hist` is the
 * image's histogram when the caller has it.
 */
export async function stretchContrast(
  px: Uint8Array,
  width: number,
  height: number,
  probePixels: number | readonly number[] = PROBE_PIXELS,
  hist = histogram(px),
): Promise<'probe' | 'page'> {
  const stretch = (img: Uint8Array, w: number, h: number) =>
    sharp(img, { raw: { width: w, height: h, channels: 1 } })
      .normalise({ lower: 1, upper: 99 })
      .extractChannel(0)
      .raw()
      .toBuffer();
  const n = px.length;
  for (const size of typeof probePixels === 'number' ? [probePixels] : probePixels) {
    const lut = await probeLut(hist, n, size, stretch);
    if (!lut) continue;
    for (let i = 0; i < n; i++) px[i] = lut[px[i]];
    return 'probe';
  }
  px.set(await stretch(px, width, height));
  return 'page';
}

/**
 * Probe sizes tried in turn: sharp's stretch costs about 80 ms of CPU per million pixels (a Lab round trip
 * each), and a probe that would not be exact costs only the check. Of nine real scanned pages, six were exact
 * at 20,000 pixels and all nine at 250,000.
 */
const PROBE_PIXELS = [20_000, 250_000, 1_000_000] as const;

/**
 * How many pixels of each gray level `px` has. Counted in four tables, every fourth pixel to each: a page is
 * mostly one level (paper), and one table's count for it would be read back before the last add to it landed.
 */
function histogram(px: Uint8Array): Uint32Array {
  const tables = [0, 1, 2, 3].map(() => new Uint32Array(256));
  const [a, b, c, d] = tables;
  const whole = px.length & ~3;
  let i = 0;
  for (; i < whole; i += 4) {
    a[px[i]]++;
    b[px[i + 1]]++;
    c[px[i + 2]]++;
    d[px[i + 3]]++;
  }
  for (; i < px.length; i++) a[px[i]]++;
  for (let g = 0; g < 256; g++) a[g] += b[g] + c[g] + d[g];
  return a;
}

/**
 * The lookup table sharp's stretch makes for an image of `n` pixels with histogram `hist`, read from a probe
 * of about `probePixels` pixels; undefined when the probe's scaled counts could be judged otherwise than the
 * image's.
 */
async function probeLut(
  hist: Uint32Array,
  n: number,
  probePixels: number,
  stretch: (img: Uint8Array, w: number, h: number) => Promise<Buffer>,
): Promise<Uint8Array | undefined> {
  // The probe's cumulative counts: the page's scaled, at least one pixel a level.
  const cum = new Float64Array(256);
  const cum2 = new Float64Array(256);
  let top = 0;
  for (let g = 0, c = 0, c2 = 0; g < 256; g++) {
    if (hist[g] > 0) {
      c += hist[g];
      c2 = Math.max(c2 + 1, Math.round((c * probePixels) / n));
      top = g;
    }
    cum[g] = c;
    cum2[g] = c2;
  }
  const n2 = cum2[255];
  let same = n2 < n;
  const t = Math.trunc((await grayLightness())[top]);
  for (let g = 0; same && g < top; g++) {
    if (hist[g] === 0) continue;
    for (let x = Math.max(1, t - 1); same && x <= t + 2; x++)
      for (const k of [1, 2, x - 1, x]) {
        const a = cum[g] * x - k * n;
        const b = cum2[g] * x - k * n2;
        if (a === 0 || b === 0 || a < 0 !== b < 0) same = false;
      }
  }
  if (!same) return undefined;
  const probe = new Uint8Array(n2);
  for (let g = 0, i = 0; g < 256; g++) probe.fill(g, i, (i = cum2[g]));
  const out = await stretch(probe, n2, 1);
  const lut = new Uint8Array(256);
  for (let g = 0; g < 256; g++) if (hist[g] > 0) lut[g] = out[cum2[g] - 1];
  return lut;
}
