// Pixel boxes read on their own: gray cut-outs of a page image (rules whitened), stacked into one image and read
// in one pass, for the region reader and the uncovered-ink check.
import sharp from 'sharp';
import { grayPixels, type NormalisedImage } from './image.ts';
import type { OcrOptions } from './options.ts';
import type { TextItem } from '../layout.ts';
import { ocrImage } from '../ocr.ts';
import { stackCrops, type Crop } from './crops.ts';

/**
 * Boxes of the page image (pixels, clamped to the image) cut out, stacked and read in one engine call (psm 6, no
 * second reading); each box's words, in page points. `prepare` may change a cut-out's pixels before it is read
 * (whiten words the page already has). A box with a `scale` (2 = twice as large) is enlarged (lanczos3) after
 * `prepare`: the same glyphs at another size are a second, independent look for the engine.
 */
export async function readPixelBoxes(
  img: NormalisedImage,
  boxes: { x0: number; y0: number; x1: number; y1: number; scale?: number }[],
  options: OcrOptions,
  prepare?: (crop: Crop) => void,
): Promise<TextItem[][]> {
  if (boxes.length === 0) return [];
  const px = grayPixels(img);
  const crops = await Promise.all(
    boxes.map(async (b) => {
      const x0 = Math.max(0, Math.floor(b.x0));
      const y0 = Math.max(0, Math.floor(b.y0));
      const w = Math.max(1, Math.min(img.width, Math.ceil(b.x1)) - x0);
      const h = Math.max(1, Math.min(img.height, Math.ceil(b.y1)) - y0);
      const data = new Uint8Array(w * h).fill(255);
      for (let y = 0; y < h && y0 + y < img.height; y++) data.set(px.subarray((y0 + y) * img.width + x0, (y0 + y) * img.width + x0 + w), y * w);
      const crop = { data, w, h, x0, y0 };
      prepare?.(crop);
      const k = b.scale ?? 1;
      if (k === 1) return { crop, k };
      const W = Math.round(w * k);
      const H = Math.round(h * k);
      const big = await sharp(crop.data, { raw: { width: w, height: h, channels: 1 } })
        .resize(W, H, { kernel: 'lanczos3' })
        .extractChannel(0)
        .raw()
        .toBuffer();
      return { crop: { data: new Uint8Array(big.buffer, big.byteOffset, big.length), w: W, h: H, x0, y0 }, k: W / w };
    }),
  );
  const margin = 24;
  const { img: strip, placed } = stackCrops(
    crops.map((c) => c.crop),
    margin,
    24,
  );
  const read = await ocrImage(strip, { ...options, psm: 6, reread: false });
  const s = img.ptPerPx;
  const out: TextItem[][] = boxes.map(() => []);
  for (const w of read.words) {
    const mid = w.y + w.h / 2;
    const k = placed.findIndex((p) => mid >= p.top && mid < p.bottom);
    if (k < 0) continue;
    // Strip pixels back to page-image pixels: x0 + (x - margin) / scale (the same as x + dx at scale 1).
    const { k: f, crop } = crops[k];
    out[k].push({ ...w, x: (crop.x0 + (w.x - margin) / f) * s, y: (crop.y0 + (w.y - placed[k].top) / f) * s, w: (w.w / f) * s, h: (w.h / f) * s });
  }
  return out;
}
