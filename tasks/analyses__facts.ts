// Stage 3 of a lease analysis: assemble one document from its pages (text layer and OCR) and read its facts
// (pipelines/lease leaseStage / insuranceStage); app_private.record_analysis_facts queues the comparison
// once both documents' facts are in.
import type { Task } from 'graphile-worker';
import { z } from 'zod';
import { analysisWork, failAnalysis, recordAnalysisFacts } from '../db/queries/analyses.ts';
import { documentPages } from '../db/queries/extractions.ts';
import { assembleDocument, type PageText, type Sniffed, type StageError } from '../pipelines/documents/index.ts';
import { insuranceStage, leaseStage } from '../pipelines/lease/index.ts';
import type { TaskDeps } from './context.ts';

const payload = z.object({ analysis_id: z.uuid(), document: z.enum(['lease', 'insurance']) });

const kindOf: Record<string, Sniffed['kind']> = { 'application/pdf': 'pdf', 'image/jpeg': 'jpeg', 'image/png': 'png' };

export function analysesFacts(_deps: TaskDeps): Task {
  return async (raw, helpers) => {
    const { analysis_id, document } = payload.parse(raw);
    const work = await helpers.withPgClient((c) => analysisWork(c, analysis_id, document));
    if (!work || work.status !== 'processing') return;
    if ((document === 'lease' ? work.lease_facts : work.insurance_facts) !== null) return; // saved by an earlier run
    const rows = await helpers.withPgClient((c) => documentPages(c, work.document_id));
    const errors: StageError[] = [];
    let engine: string | undefined;
    const pages: PageText[] = [];
    for (const r of rows) {
      if (r.state === 'ocr_failed') errors.push({ stage: 'ocr', page: r.page, message: r.error ?? 'OCR failed' });
      const content = r.content as (PageText & { ocr_engine?: string }) | null;
      if (!content || r.state === 'ocr_pending') continue;
      if (content.ocr_engine) engine = content.ocr_engine;
      const { ocr_engine: _e, ...page } = content;
      pages.push(page as PageText);
    }
    const doc = assembleDocument({ kind: kindOf[work.content_type], mime: work.content_type, bytes: 0 } as Sniffed, pages, errors, engine);
    if (doc.status === 'failure') {
      const why = errors.map((e) => e.message).join('; ') || 'the document has no text layer and OCR found no text';
      await helpers.withPgClient((c) => failAnalysis(c, analysis_id, 'extraction_failed', `${document}: no text could be read from the document (${why})`));
      return;
    }
    const out = document === 'lease' ? leaseStage(doc) : insuranceStage(doc);
    await helpers.withPgClient((c) => recordAnalysisFacts(c, analysis_id, document, out));
  };
}
