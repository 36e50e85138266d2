// Decide what a file is from its bytes (never from its name or declared type) and enforce the limits of
// SPEC §4.3/§4.4/§8: PDF, JPEG or PNG; at most 10 MB; images are one page; images are not decompression bombs.
import { DocumentError } from './errors.ts';

export type DocumentKind = 'pdf' | 'jpeg' | 'png';

export const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
/** Safety bound on a PDF's pages (lib/config.ts MAX_DOCUMENT_PAGES): whole policy packets are read; none comes near it. */
export const DEFAULT_MAX_PAGES = 2000;
/** Largest decoded image we accept (a 300 dpi Letter page is ~8.4 Mpx; this leaves room for 600 dpi). */
export const DEFAULT_MAX_IMAGE_PIXELS = 40_000_000;

export interface SniffLimits {
  maxBytes?: number;
  maxImagePixels?: number;
}

export interface Sniffed {
  kind: DocumentKind;
  mime: 'application/pdf' | 'image/jpeg' | 'image/png';
  bytes: number;
  /** Pixel size for images (read from the header, before decoding). */
  width?: number;
  height?: number;
}

const KIND_OF_MIME: Record<Sniffed['mime'], DocumentKind> = { 'application/pdf': 'pdf', 'image/jpeg': 'jpeg', 'image/png': 'png' };

/** What sniffing found when the file was stored: its recorded type and size (a stored document's type is one `sniff` gave). */
export function storedSniff(mime: string, bytes: number): Sniffed {
  const kind = KIND_OF_MIME[mime as Sniffed['mime']];
  if (!kind) throw new DocumentError('internal_error', 'unsupported_type', `a stored document of type ${mime} cannot be read`);
  return { kind, mime: mime as Sniffed['mime'], bytes };
}

const startsWith = (b: Uint8Array, sig: number[], at = 0) => sig.every((v, i) => b[at + i] === v);

/** Type by magic bytes and check size, page count (images) and pixel count. Throws DocumentError. */
export function sniff(bytes: Uint8Array, limits: SniffLimits = {}): Sniffed {
  const maxBytes = limits.maxBytes ?? DEFAULT_MAX_BYTES;
  const maxPixels = limits.maxImagePixels ?? DEFAULT_MAX_IMAGE_PIXELS;
  if (bytes.length === 0) throw new DocumentError('bad_request', 'empty', 'the file is empty');
  if (bytes.length > maxBytes) {
    throw new DocumentError('payload_too_large', 'too_large', `the file is ${bytes.length} bytes; the limit is ${maxBytes} bytes`);
  }
  // %PDF may follow a little junk (some generators prepend bytes); pdf.js tolerates up to 1 KB.
  const head = Buffer.from(bytes.subarray(0, 1024)).toString('latin1');
  const pdfAt = head.indexOf('%PDF-');
  if (pdfAt >= 0) return { kind: 'pdf', mime: 'application/pdf', bytes: bytes.length };
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) {
    const size = jpegSize(bytes);
    if (!size) throw new DocumentError('bad_request', 'corrupt_image', 'the JPEG image has no readable frame header');
    checkPixels(size, maxPixels);
    return { kind: 'jpeg', mime: 'image/jpeg', bytes: bytes.length, ...size };
  }
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) {
    const size = pngInfo(bytes);
    if (size.frames > 1) {
      throw new DocumentError('bad_request', 'multi_page_image', `the PNG is animated with ${size.frames} frames; images must be a single page`);
    }
    checkPixels(size, maxPixels);
    return { kind: 'png', mime: 'image/png', bytes: bytes.length, width: size.width, height: size.height };
  }
  if (startsWith(bytes, [0x49, 0x49, 0x2a, 0x00]) || startsWith(bytes, [0x4d, 0x4d, 0x00, 0x2a])) {
    throw new DocumentError('bad_request', 'unsupported_type', 'TIFF files are not supported; send a PDF, JPEG or PNG');
  }
  throw new DocumentError('bad_request', 'unsupported_type', 'the file is not a PDF, JPEG or PNG');
}

function checkPixels(size: { width: number; height: number }, maxPixels: number) {
  if (size.width <= 0 || size.height <= 0) throw new DocumentError('bad_request', 'corrupt_image', 'the image has no pixels');
  if (size.width * size.height > maxPixels) {
    throw new DocumentError('bad_request', 'image_too_large', `the image is ${size.width}×${size.height} pixels; the limit is ${maxPixels} pixels`);
  }
}

/** Width/height from the first SOFn marker; undefined when none is found. */
function jpegSize(b: Uint8Array): { width: number; height: number } | undefined {
  let i = 2;
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) {
      i++;
      continue;
    }
    const marker = b[i + 1];
    if (marker === 0xff) {
      i++;
      continue;
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2;
      continue;
    }
    const len = (b[i + 2] << 8) | b[i + 3];
    const isSof = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isSof) return { height: (b[i + 5] << 8) | b[i + 6], width: (b[i + 7] << 8) | b[i + 8] };
    if (marker === 0xda) return undefined; // start of scan before any frame header
    i += 2 + len;
  }
  return undefined;
}

/** IHDR size and APNG frame count (acTL chunk). */
function pngInfo(b: Uint8Array): { width: number; height: number; frames: number } {
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  if (b.length < 33) throw new DocumentError('bad_request', 'corrupt_image', 'the PNG is truncated');
  const width = dv.getUint32(16);
  const height = dv.getUint32(20);
  let frames = 1;
  let i = 8;
  while (i + 12 <= b.length) {
    const len = dv.getUint32(i);
    const type = String.fromCharCode(b[i + 4], b[i + 5], b[i + 6], b[i + 7]);
    if (type === 'acTL' && i + 12 <= b.length) frames = dv.getUint32(i + 8);
    if (type === 'IDAT' || type === 'IEND') break;
    i += 12 + len;
  }
  return { width, height, frames };
}
