// Stage 1 of reading a document, whoever owns the reading (an extraction, a side of a lease analysis): the owner
// moves from queued to processing, the stored file's text layer is read, and app_private.record_reading_text
// queues OCR of the pages without one (or the owner's continuation when none needs it).
import type { Task } from 'graphile-worker';
import { z } from 'zod';
import { beginReading, failReading, recordReadingText } from '../db/queries/readings.ts';
import { DocumentError, readTextLayer } from '../pipelines/documents/index.ts';
import { engineOptions, type TaskDeps } from './context.ts';
import { failureCode, readerOf, storedFileOrFail } from './reading.ts';

const payload = z.object({ document_id: z.uuid() });

export function documentsRead(deps: TaskDeps): Task {
  const { read } = engineOptions(deps.cfg);
  return async (raw, helpers) => {
    const { document_id } = payload.parse(raw);
    const work = await helpers.withPgClient((c) => beginReading(c, document_id));
    if (!work) return; // its owner finished or was removed: no longer relevant
    const reader = readerOf(work);
    const bytes = await storedFileOrFail(deps, helpers, work);
    if (!bytes) return;
    try {
      const layer = await readTextLayer(bytes, reader.options(read));
      // A located packet's pages not chosen are counted too (only the chosen ones are in `pages`).
      const pageCount = Math.max(
        layer.located?.length ?? 0,
        layer.pages.length,
        ...layer.pages.map((p) => p.page),
        ...layer.needOcr,
        layer.sniffed.kind === 'pdf' ? 0 : 1,
      );
      await helpers.withPgClient((c) => recordReadingText(c, document_id, pageCount, layer.pages, layer.needOcr));
      helpers.logger.debug('document text read', { documentId: document_id, purpose: work.purpose, pages: pageCount, ocrPages: layer.needOcr.length });
    } catch (err) {
      if (!(err instanceof DocumentError)) throw err; // transient: graphile-worker retries
      // What was used on the refused file: an image is only ever read by OCR, a PDF's text layer came first.
      const method = work.content_type.startsWith('image/') ? 'ocr' : 'text';
      await helpers.withPgClient((c) => failReading(c, document_id, failureCode(err), reader.failure(err), method));
    }
  };
}
