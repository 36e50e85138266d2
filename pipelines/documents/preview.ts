// A page of a stored document as a PNG for people to look at (the dashboard's extraction page, the analysts'
// eval report): a PDF page rendered by pdf.js in the PDF worker (or its embedded scan), a photo as it is,
// scaled to a width with sharp.
import sharp from 'sharp';
import { DocumentError } from './errors.ts';
import { rasterPdfPage } from './pdf.ts';

export interface PagePreview {
  png: Buffer;
  width: number;
  height: number;
  /** Width of the page in PDF points (for a photo: the image at 72 dpi), to place boxes given in points. */
  pageWidth: number;
}

/**
 * Page `page` (1-based) of a PDF, or the one page of a JPEG/PNG, as a PNG at most `width` pixels wide.
 * `dpi` is the render resolution of PDF pages (the default reads well at 1000 px). Throws a DocumentError.
 */
export async function renderPagePreview(
  bytes: Uint8Array,
  contentType: string,
  page: number,
  o: { width?: number; dpi?: number; maxPixels?: number } = {},
): Promise<PagePreview> {
  const width = o.width ?? 1000;
  let source: Uint8Array;
  let pageWidth: number | undefined;
  if (contentType === 'application/pdf') {
    const r = await rasterPdfPage(bytes, page, o.dpi ?? 110, o.maxPixels ?? 4_000_000);
    source = r.data;
    pageWidth = r.pageWidth;
  } else {
    if (page !== 1) throw new DocumentError('bad_request', 'no_such_page', `an image has one page, not ${page}`);
    source = bytes;
  }
  try {
    const { data, info } = await sharp(Buffer.from(source), { limitInputPixels: 40_000_000, pages: 1 })
      .rotate()
      .resize({ width, withoutEnlargement: true })
      .png({ compressionLevel: 6 })
      .toBuffer({ resolveWithObject: true });
    return { png: data, width: info.width, height: info.height, pageWidth: pageWidth ?? info.width };
  } catch (e) {
    throw new DocumentError('extraction_failed', 'corrupt_image', 'the page image could not be made', (e as Error).message);
  }
}
