// Stage 2 of reading a document: OCR one page without a text layer (one job per page, at a lower priority than
// every other stage, so a long scan never holds text documents behind it). Only that page is read from the
// database; a page already saved is not redone. app_private.record_reading_page queues the owner's continuation
// when the last page is in.
import type { Task } from 'graphile-worker';
import { z } from 'zod';
import { documentPage, failReading, readingWork, recordReadingPage } from '../db/queries/readings.ts';
import { DocumentError, ocrPage, storedSniff } from '../pipelines/documents/index.ts';
import { engineOptions, type TaskDeps } from './context.ts';
import { failureCode, readerOf, storedFileOrFail } from './reading.ts';

const payload = z.object({ document_id: z.uuid(), page: z.number().int().positive() });

export function documentsOcr(deps: TaskDeps): Task {
  const { read } = engineOptions(deps.cfg);
  return async (raw, helpers) => {
    const { document_id, page } = payload.parse(raw);
    const work = await helpers.withPgClient((c) => readingWork(c, document_id));
    if (!work) return;
    const row = await helpers.withPgClient((c) => documentPage(c, document_id, page));
    if (!row || row.state !== 'ocr_pending') return; // done by an earlier run of this job
    const reader = readerOf(work);
    const bytes = await storedFileOrFail(deps, helpers, work);
    if (!bytes) return;
    try {
      const r = await ocrPage(bytes, storedSniff(work.content_type, work.size_bytes), page, reader.options(read), row.content ?? undefined);
      if (helpers.abortSignal?.aborted) throw new Error('worker shutting down');
      await helpers.withPgClient((c) => recordReadingPage(c, document_id, page, { content: r.page, engine: r.engine }));
      deps.metrics?.ocrPages.inc({ engine: r.engine });
    } catch (err) {
      if (helpers.abortSignal?.aborted) throw err; // the page was not read; the job runs again
      if (err instanceof DocumentError && (work.content_type !== 'application/pdf' || err.reason === 'stage_budget')) {
        // An image is its one page: a refused image is a refused document. A page past the stage's time budget
        // ends the document (extraction_failed, with the reason), as a text stage past it does.
        await helpers.withPgClient((c) => failReading(c, document_id, failureCode(err), reader.failure(err), 'ocr'));
        return;
      }
      // One unreadable page makes the result partial rather than failing the document.
      await helpers.withPgClient((c) => recordReadingPage(c, document_id, page, { error: (err as Error).message.slice(0, 500) }));
    }
  };
}
