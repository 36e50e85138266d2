// Stage 1 of an extraction: queued → processing, read the stored file's text layer, and let
// app_private.record_document_text queue OCR of the pages without one (or the extraction when none needs it).
import type { Task } from 'graphile-worker';
import { z } from 'zod';
import { beginExtraction, failExtraction, recordDocumentText } from '../db/queries/extractions.ts';
import { DocumentError, LOCATE_ABOVE_PAGES, readTextLayer } from '../pipelines/documents/index.ts';
import { engineOptions, taskBlobs, type TaskDeps } from './context.ts';

const payload = z.object({ extraction_id: z.uuid() });

export function documentsRead(deps: TaskDeps): Task {
  const { read } = engineOptions(deps.cfg);
  return async (raw, helpers) => {
    const { extraction_id } = payload.parse(raw);
    const work = await helpers.withPgClient((c) => beginExtraction(c, extraction_id));
    if (!work) return; // finished or removed: no longer relevant
    const bytes = work.blob_key ? await taskBlobs(deps).get(work.blob_key) : undefined;
    if (!bytes) {
      await helpers.withPgClient((c) => failExtraction(c, extraction_id, 'internal_error', 'the stored document is no longer available', null));
      return;
    }
    try {
      // A long policy packet is located: only its declarations, certificates and schedules are read and OCR'd.
      const layer = await readTextLayer(bytes, { locateAbovePages: LOCATE_ABOVE_PAGES, ...read });
      const pageCount = Math.max(
        layer.located?.length ?? 0,
        layer.pages.length,
        ...layer.pages.map((p) => p.page),
        ...layer.needOcr,
        layer.sniffed.kind === 'pdf' ? 0 : 1,
      );
      await helpers.withPgClient((c) => recordDocumentText(c, extraction_id, pageCount, layer.pages, layer.needOcr));
      helpers.logger.debug('document text read', { extractionId: extraction_id, pages: pageCount, ocrPages: layer.needOcr.length });
    } catch (err) {
      if (!(err instanceof DocumentError)) throw err; // transient: graphile-worker retries
      // What was used on the refused file: an image is only ever read by OCR, a PDF's text layer came first.
      const method = work.content_type.startsWith('image/') ? 'ocr' : 'text';
      await helpers.withPgClient((c) =>
        failExtraction(c, extraction_id, err.code === 'payload_too_large' ? 'bad_request' : err.code, err.details ?? err.message, method),
      );
    }
  };
}
