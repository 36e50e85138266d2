// Pictures made for a test: one colour, a given size, as PNG or JPEG bytes (logos, profile pictures, blank photos).
import sharp from 'sharp';

/** A `width`×`height` picture all of `background`, encoded as `format`. */
export function solidImage(width: number, height: number, background: string, format: 'png' | 'jpeg' = 'png') {
  return sharp({ create: { width, height, channels: 3, background } })
    [format]()
    .toBuffer();
}
