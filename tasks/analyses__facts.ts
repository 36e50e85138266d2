// Stage 3 of a lease analysis: one document (lease or insurance) from its stored pages (text layer and OCR),
// and its facts (pipelines/lease leaseStage / insuranceStage); app_private.record_analysis_facts queues the
// comparison once both documents' facts are in.
import type { Task } from 'graphile-worker';
import { z } from 'zod';
import { analysisWork, failAnalysis, recordAnalysisFacts } from '../db/queries/analyses.ts';
import { documentPages } from '../db/queries/readings.ts';
import { storedDocument } from '../pipelines/documents/index.ts';
import { insuranceStage, leaseStage } from '../pipelines/lease/index.ts';
import type { TaskDeps } from './context.ts';

const payload = z.object({ analysis_id: z.uuid(), document: z.enum(['lease', 'insurance']) });

export function analysesFacts(_deps: TaskDeps): Task {
  return async (raw, helpers) => {
    const { analysis_id, document } = payload.parse(raw);
    const work = await helpers.withPgClient((c) => analysisWork(c, analysis_id, document));
    if (!work || work.status !== 'processing') return;
    if ((document === 'lease' ? work.lease_facts : work.insurance_facts) !== null) return; // saved by an earlier run
    const doc = storedDocument(work, await helpers.withPgClient((c) => documentPages(c, work.document_id)));
    if (doc.status === 'failure') {
      const why = doc.errors.map((e) => e.message).join('; ') || 'the document has no text layer and OCR found no text';
      await helpers.withPgClient((c) => failAnalysis(c, analysis_id, 'extraction_failed', `${document}: no text could be read from the document (${why})`));
      return;
    }
    const out = document === 'lease' ? leaseStage(doc) : insuranceStage(doc);
    await helpers.withPgClient((c) => recordAnalysisFacts(c, analysis_id, document, out));
  };
}
