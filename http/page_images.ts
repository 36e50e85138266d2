// Pages of an extraction's document rendered to PNG for the dashboard (the extraction page, the review page),
// with the size of the page in points, so that citation boxes (points from the top-left corner) can be drawn
// over the image. Shared by the dashboard's extraction and review routes.
import { renderPagePreview, type PagePreview } from '../pipelines/documents/index.ts';
import type { Deps } from './context.ts';
import { notFound } from './errors.ts';

// Rendered pages of the last documents looked at, per process: rendering a PDF page takes pdf.js a few hundred
// ms, and people flip between a document's pages. Keyed by blob key, which is unique per document and null once
// the file expired (the routes check that before they look here), so an expired document's page is never served.
const renderedPages = new Map<string, Promise<PagePreview>>();
const RENDERED_PAGES_KEPT = 24;
/** Width of the rendered page image in pixels. */
export const PAGE_IMAGE_WIDTH = 1000;

/** Page `page` of a stored document as a PNG preview (cached per process). */
export function pagePreview(deps: Deps, blobKey: string, contentType: string, page: number): Promise<PagePreview> {
  const key = `${blobKey}#${page}`;
  let png = renderedPages.get(key);
  if (png) {
    renderedPages.delete(key); // most recently used last
  } else {
    png = (async () => {
      const bytes = await deps.blobs.get(blobKey);
      if (!bytes) throw notFound('document file');
      return renderPagePreview(bytes, contentType, page, { width: PAGE_IMAGE_WIDTH });
    })();
    // A failure is not kept.
    png.catch(() => renderedPages.delete(key));
  }
  renderedPages.set(key, png);
  while (renderedPages.size > RENDERED_PAGES_KEPT) renderedPages.delete(renderedPages.keys().next().value!);
  return png;
}

/** The page's size in points (width, and height from the image's proportions), or null when it cannot be rendered. */
export async function pageSize(deps: Deps, blobKey: string, contentType: string, page: number): Promise<{ w: number; h: number } | null> {
  try {
    const p = await pagePreview(deps, blobKey, contentType, page);
    return { w: p.pageWidth, h: (p.height * p.pageWidth) / p.width };
  } catch {
    return null;
  }
}
