// Retention (hourly cron): documents older than their agency's retention period lose their stored file, their
// page text and their extracted data; the record then says its file expired. Step 1 (one SQL call) marks them
// and lists their blobs; step 2 deletes each blob and then forgets it, so a crash half-way only leaves blobs
// that the next run deletes.
import type { Task } from 'graphile-worker';
import { expiredBlobs, expireDocuments, forgetExpiredBlob } from '../db/queries/extractions.ts';
import { taskBlobs, type TaskDeps } from './context.ts';

export function documentsExpire(deps: TaskDeps): Task {
  return async (_payload, helpers) => {
    let expired = 0;
    for (let n = -1; n !== 0;) {
      n = await helpers.withPgClient((c) => expireDocuments(c, deps.cfg.DOCUMENT_RETENTION_DAYS, 500));
      expired += n;
    }
    let deleted = 0;
    for (let keys = ['']; keys.length;) {
      keys = await helpers.withPgClient((c) => expiredBlobs(c, 500));
      for (const k of keys) {
        await taskBlobs(deps).delete(k);
        await helpers.withPgClient((c) => forgetExpiredBlob(c, k));
        deleted++;
      }
    }
    if (expired || deleted) helpers.logger.info('documents expired', { documents: expired, blobs: deleted });
  };
}
