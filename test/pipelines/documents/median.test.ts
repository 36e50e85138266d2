// The 3×3 median that prepares a scan (WebAssembly SIMD) against sharp's median(3), which it replaces: the
// same pixels at every size, sixteen-pixel rows and their remainders, edges included.
import test from 'ava';
import sharp from 'sharp';
import { median3x3 } from '../../../pipelines/documents/ocr/median.ts';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

test('the median equals sharp median(3) pixel for pixel, edges and row remainders included', async (t) => {
  const r = rng(20261129);
  for (const [width, height] of [
    [3, 3],
    [4, 3],
    [15, 4],
    [16, 3],
    [17, 9],
    [31, 33],
    [100, 7],
    [257, 129],
  ]) {
    // Paper with ink and noise: most pixels white, the rest anything.
    const px = Uint8Array.from({ length: width * height }, () => (r() < 0.6 ? 255 : Math.floor(r() * 256)));
    const before = Uint8Array.from(px);
    const want = await sharp(px, { raw: { width, height, channels: 1 } })
      .median(3)
      .extractChannel(0)
      .raw()
      .toBuffer();
    const got = median3x3(px, width, height);
    t.is(got.length, width * height);
    const differing = got.reduce((a, v, i) => a + (v !== want[i] ? 1 : 0), 0);
    t.is(differing, 0, `${width}×${height}: ${differing} pixels differ`);
    t.deepEqual(px, before, 'the input is left as it was');
  }
});

test('a size that does not match the pixels is refused', (t) => {
  t.throws(() => median3x3(new Uint8Array(10), 3, 3), { message: /10 bytes for 3x3/ });
  t.is(median3x3(new Uint8Array(0), 0, 0).length, 0);
});
