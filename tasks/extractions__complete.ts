// Stage 4 of an extraction: sign the link to the stored file, build the §6.2 `client-submission` data, and
// let app_private.complete_extraction set the status, create or update the client, the submission and the
// declaration page, and emit the events — all in one transaction.
import type { Task } from 'graphile-worker';
import { z } from 'zod';
import { completeExtraction, extractionWork, failExtraction } from '../db/queries/extractions.ts';
import { fileLinkKey, signFileLink } from '../lib/links.ts';
import { clientSubmissionData, type ExtractedPolicy } from '../pipelines/webhooks/client_submission.ts';
import type { TaskDeps } from './context.ts';

const payload = z.object({ extraction_id: z.uuid() });

export function extractionsComplete(deps: TaskDeps): Task {
  const key = fileLinkKey(deps.secretKey);
  return async (raw, helpers) => {
    const { extraction_id } = payload.parse(raw);
    const work = await helpers.withPgClient((c) => extractionWork(c, extraction_id));
    if (!work || work.status !== 'processing' || !work.outcome || !work.result) return;
    if (!work.blob_key) {
      await helpers.withPgClient((c) =>
        failExtraction(c, extraction_id, 'internal_error', 'the stored document expired before the extraction completed', work.parsing_method),
      );
      return;
    }
    const link = signFileLink({ baseUrl: deps.cfg.filesUrl, key, blobKey: work.blob_key, filename: work.filename, ttlSeconds: deps.cfg.FILE_LINK_TTL_SECONDS });
    const data = clientSubmissionData(work.result as ExtractedPolicy, link.url);
    await helpers.withPgClient((c) => completeExtraction(c, extraction_id, data));
    helpers.logger.info('extraction completed', { extractionId: extraction_id, outcome: work.outcome });
  };
}
