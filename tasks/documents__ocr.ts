// Stage 2 of an extraction: OCR one page without a text layer (one job per page, at a lower priority than
// every other stage, so a long scan never holds text documents behind it). A page already saved is not
// redone; app_private.record_ocr_page queues the extraction when the last page is in.
import type { Task } from 'graphile-worker';
import { z } from 'zod';
import { documentPages, extractionWork, failExtraction, recordOcrPage } from '../db/queries/extractions.ts';
import { DocumentError, ocrPage, sniff, type PageText } from '../pipelines/documents/index.ts';
import { engineOptions, taskBlobs, type TaskDeps } from './context.ts';

const payload = z.object({ extraction_id: z.uuid(), page: z.number().int().positive() });

export function documentsOcr(deps: TaskDeps): Task {
  const { read } = engineOptions(deps.cfg);
  return async (raw, helpers) => {
    const { extraction_id, page } = payload.parse(raw);
    const work = await helpers.withPgClient((c) => extractionWork(c, extraction_id));
    if (!work || work.status !== 'processing') return;
    const row = (await helpers.withPgClient((c) => documentPages(c, work.document_id))).find((p) => p.page === page);
    if (!row || row.state !== 'ocr_pending') return; // done by an earlier run of this job
    const bytes = work.blob_key ? await taskBlobs(deps).get(work.blob_key) : undefined;
    if (!bytes) {
      await helpers.withPgClient((c) => failExtraction(c, extraction_id, 'internal_error', 'the stored document is no longer available', null));
      return;
    }
    try {
      const sniffed = sniff(bytes, { maxBytes: read.maxBytes, maxImagePixels: read.maxImagePixels });
      const r = await ocrPage(bytes, sniffed, page, read, (row.content as PageText | null) ?? undefined);
      if (helpers.abortSignal?.aborted) throw new Error('worker shutting down');
      await helpers.withPgClient((c) => recordOcrPage(c, extraction_id, page, { ...r.page, ocr_engine: r.engine }, null));
      deps.metrics?.ocrPages.inc({ engine: r.engine });
    } catch (err) {
      if (helpers.abortSignal?.aborted) throw err; // the page was not read; the job runs again
      if (err instanceof DocumentError && work.content_type !== 'application/pdf') {
        await helpers.withPgClient((c) =>
          failExtraction(c, extraction_id, err.code === 'payload_too_large' ? 'bad_request' : err.code, err.details ?? err.message, 'ocr'),
        );
        return;
      }
      // One unreadable page makes the result partial rather than failing the document.
      await helpers.withPgClient((c) => recordOcrPage(c, extraction_id, page, null, (err as Error).message.slice(0, 500)));
    }
  };
}
