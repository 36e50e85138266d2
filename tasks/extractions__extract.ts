// Stage 3 of an extraction: the document from its stored pages (text layer and OCR), run the extractor (rules, and the
// LLM when configured), and save what it found; app_private.record_extraction_result queues the completion.
import type { Task } from 'graphile-worker';
import { z } from 'zod';
import { extractionWork, failExtraction, recordExtractionResult } from '../db/queries/extractions.ts';
import { documentPages } from '../db/queries/readings.ts';
import { DocumentError, storedDocument } from '../pipelines/documents/index.ts';
import { extractReadDocument, type EntityType } from '../pipelines/extraction/index.ts';
import { engineOptions, taskBlobs, type TaskDeps } from './context.ts';

const payload = z.object({ extraction_id: z.uuid() });

export function extractionsExtract(deps: TaskDeps): Task {
  const options = engineOptions(deps.cfg);
  return async (raw, helpers) => {
    const { extraction_id } = payload.parse(raw);
    const work = await helpers.withPgClient((c) => extractionWork(c, extraction_id));
    if (!work || work.status !== 'processing' || work.outcome) return;
    const doc = storedDocument(work, await helpers.withPgClient((c) => documentPages(c, work.document_id)));
    // An image has no text layer: whatever its pages hold, they were read by OCR.
    const method = doc.sniffed.kind !== 'pdf' || doc.method === 'ocr' ? 'ocr' : doc.method === 'text' ? 'text' : 'hybrid';
    try {
      // The file is loaded only when the text names no carrier (its header band is then read by OCR).
      const bytes = async () => (work.blob_key ? await taskBlobs(deps).get(work.blob_key) : undefined);
      const r = await extractReadDocument(
        doc,
        bytes,
        { entityType: work.entity_type as EntityType, filename: work.filename, llm: options.llm, read: options.read },
        { signal: helpers.abortSignal },
      );
      // A header band read by OCR makes a text document's reading hybrid.
      const read = method === 'text' && r.parsing_method.startsWith('pdf_text+ocr') ? 'hybrid' : method;
      const parsingMethod = r.parsing_method.endsWith('+llm') ? `${read}+llm` : read;
      if (r.parsing_status === 'failed') {
        await helpers.withPgClient((c) =>
          failExtraction(
            c,
            extraction_id,
            'extraction_failed',
            'no policy data (carrier, policy number, dates, policyholder) was found in the document',
            parsingMethod,
          ),
        );
        return;
      }
      await helpers.withPgClient((c) =>
        recordExtractionResult(c, extraction_id, r.parsing_status as 'completed' | 'partial', parsingMethod, r.extracted_data, r.errors),
      );
    } catch (err) {
      if (!(err instanceof DocumentError)) throw err;
      await helpers.withPgClient((c) =>
        failExtraction(c, extraction_id, err.code === 'payload_too_large' ? 'bad_request' : err.code, err.details ?? err.message, method),
      );
    }
  };
}
