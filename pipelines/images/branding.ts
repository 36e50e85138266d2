// Uploaded logos and profile pictures: checked by magic bytes, decoded under a pixel limit (decompression
// bombs fail before allocation), stripped of metadata and re-encoded, so nothing the client sent is served.
import sharp from 'sharp';
import { z } from 'zod';

export const brandingImageOptions = z
  .object({
    maxPixels: z.number().int().positive(),
    maxEdge: z.number().int().positive().default(1024),
  })
  .strict();

export type BrandingImageOptions = z.input<typeof brandingImageOptions>;

export class ImageRejected extends Error {}

const signatures: Array<{ type: string; test: (b: Buffer) => boolean }> = [
  { type: 'png', test: (b) => b.length > 8 && b.readUInt32BE(0) === 0x89504e47 && b.readUInt32BE(4) === 0x0d0a1a0a },
  { type: 'jpeg', test: (b) => b.length > 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  { type: 'webp', test: (b) => b.length > 12 && b.toString('ascii', 0, 4) === 'RIFF' && b.toString('ascii', 8, 12) === 'WEBP' },
  { type: 'gif', test: (b) => b.length > 6 && /^GIF8[79]a$/.test(b.toString('ascii', 0, 6)) },
];

/** The image type named by the file's magic bytes, or undefined. */
export function sniffImage(bytes: Buffer): string | undefined {
  return signatures.find((s) => s.test(bytes))?.type;
}

/** Validate and re-encode an uploaded image as WebP no larger than `maxEdge` on either side. */
export async function normaliseBrandingImage(
  bytes: Buffer,
  options: BrandingImageOptions,
): Promise<{ bytes: Buffer; ext: 'webp'; width: number; height: number }> {
  const opts = brandingImageOptions.parse(options);
  const type = sniffImage(bytes);
  if (!type) throw new ImageRejected('not an image: expected PNG, JPEG, WebP or GIF content');
  try {
    const image = sharp(bytes, { limitInputPixels: opts.maxPixels, failOn: 'error', animated: false });
    const meta = await image.metadata();
    if (!meta.width || !meta.height) throw new ImageRejected('image has no dimensions');
    if (meta.width * meta.height > opts.maxPixels)
      throw new ImageRejected(`image is ${meta.width}×${meta.height} pixels; the limit is ${opts.maxPixels} pixels`);
    const { data, info } = await image
      .rotate()
      .resize({ width: opts.maxEdge, height: opts.maxEdge, fit: 'inside', withoutEnlargement: true })
      .webp({ quality: 85 })
      .toBuffer({ resolveWithObject: true });
    return { bytes: data, ext: 'webp', width: info.width, height: info.height };
  } catch (err) {
    if (err instanceof ImageRejected) throw err;
    throw new ImageRejected(`image cannot be decoded: ${(err as Error).message.replace(/^Input (buffer|file) /, '')}`);
  }
}
