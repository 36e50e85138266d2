// Stage 1 of a lease analysis, once per document (lease, insurance): queued → processing, read the stored
// file's text layer, and let app_private.record_analysis_text queue OCR of its pages without one (or its facts).
import type { Task } from 'graphile-worker';
import { z } from 'zod';
import { beginAnalysis, failAnalysis, recordAnalysisText } from '../db/queries/analyses.ts';
import { DocumentError, readTextLayer } from '../pipelines/documents/index.ts';
import { analysisFailureMessage, analysisReadOptions } from '../pipelines/lease/index.ts';
import { engineOptions, taskBlobs, type TaskDeps } from './context.ts';

const payload = z.object({ analysis_id: z.uuid(), document: z.enum(['lease', 'insurance']) });

export function analysesRead(deps: TaskDeps): Task {
  const { read } = engineOptions(deps.cfg);
  return async (raw, helpers) => {
    const { analysis_id, document } = payload.parse(raw);
    const work = await helpers.withPgClient((c) => beginAnalysis(c, analysis_id, document));
    if (!work || work.status !== 'processing') return; // finished or removed: no longer relevant
    const bytes = work.blob_key ? await taskBlobs(deps).get(work.blob_key) : undefined;
    if (!bytes) {
      await helpers.withPgClient((c) => failAnalysis(c, analysis_id, 'internal_error', `the stored ${document} document is no longer available`));
      return;
    }
    try {
      const layer = await readTextLayer(bytes, analysisReadOptions(read, document));
      const pageCount = Math.max(layer.pages.length, ...layer.pages.map((p) => p.page), ...layer.needOcr, layer.sniffed.kind === 'pdf' ? 0 : 1);
      await helpers.withPgClient((c) => recordAnalysisText(c, analysis_id, document, pageCount, layer.pages, layer.needOcr));
    } catch (err) {
      if (!(err instanceof DocumentError)) throw err; // transient: graphile-worker retries
      await helpers.withPgClient((c) =>
        failAnalysis(c, analysis_id, err.code === 'payload_too_large' ? 'bad_request' : err.code, analysisFailureMessage(document, err)),
      );
    }
  };
}
