// Stage 2 of a lease analysis: OCR one page of one document without a text layer (one job per page, at the
// lower priority of every OCR page). A page already saved is not redone; the document's last page queues its facts.
import type { Task } from 'graphile-worker';
import { z } from 'zod';
import { analysisWork, failAnalysis, recordAnalysisOcrPage } from '../db/queries/analyses.ts';
import { documentPages } from '../db/queries/extractions.ts';
import { analysisFailureMessage } from '../pipelines/lease/index.ts';
import { DocumentError, ocrPage, sniff, type PageText } from '../pipelines/documents/index.ts';
import { engineOptions, taskBlobs, type TaskDeps } from './context.ts';

const payload = z.object({ analysis_id: z.uuid(), document: z.enum(['lease', 'insurance']), page: z.number().int().positive() });

export function analysesOcr(deps: TaskDeps): Task {
  const { read } = engineOptions(deps.cfg);
  return async (raw, helpers) => {
    const { analysis_id, document, page } = payload.parse(raw);
    const work = await helpers.withPgClient((c) => analysisWork(c, analysis_id, document));
    if (!work || work.status !== 'processing') return;
    const row = (await helpers.withPgClient((c) => documentPages(c, work.document_id))).find((p) => p.page === page);
    if (!row || row.state !== 'ocr_pending') return; // done by an earlier run of this job
    const bytes = work.blob_key ? await taskBlobs(deps).get(work.blob_key) : undefined;
    if (!bytes) {
      await helpers.withPgClient((c) => failAnalysis(c, analysis_id, 'internal_error', `the stored ${document} document is no longer available`));
      return;
    }
    try {
      const sniffed = sniff(bytes, { maxBytes: read.maxBytes, maxImagePixels: read.maxImagePixels });
      const r = await ocrPage(bytes, sniffed, page, read, (row.content as PageText | null) ?? undefined);
      if (helpers.abortSignal?.aborted) throw new Error('worker shutting down');
      await helpers.withPgClient((c) => recordAnalysisOcrPage(c, analysis_id, document, page, { ...r.page, ocr_engine: r.engine }, null));
      deps.metrics?.ocrPages.inc({ engine: r.engine });
    } catch (err) {
      if (helpers.abortSignal?.aborted) throw err; // the page was not read; the job runs again
      if (err instanceof DocumentError && work.content_type !== 'application/pdf') {
        await helpers.withPgClient((c) =>
          failAnalysis(c, analysis_id, err.code === 'payload_too_large' ? 'bad_request' : err.code, analysisFailureMessage(document, err)),
        );
        return;
      }
      // One unreadable page is noted in the result rather than failing the analysis.
      await helpers.withPgClient((c) => recordAnalysisOcrPage(c, analysis_id, document, page, null, (err as Error).message.slice(0, 500)));
    }
  };
}
