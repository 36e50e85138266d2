// Hourly (cron in tasks/index.ts): hosted forms saved part-way and left past their lifetime (FORM_DRAFT_TTL_HOURS after
// the last save) are deleted with the uploads they hold. Crash-safe by its order: one transaction per batch deletes the
// draft and upload rows and lists their files in app_private.expired_blobs, and queues blobs__sweep, which deletes
// each file before forgetting its key. A crash before the commit leaves everything as it was; a crash after it leaves
// files that no row names, which the sweep (retried, and queued again by the next purge) deletes. No row ever names a
// missing file. Uploads no draft holds and no submission used are purged by maintenance__purge.
import type { Task } from 'graphile-worker';
import { z } from 'zod';
import { purgeExpiredFormDrafts } from '../db/queries/form_drafts.ts';
import { untilShortBatch } from './batches.ts';
import type { TaskDeps } from './context.ts';

const payload = z.object({}).strict();
const BATCH = 500;

export function formDraftsPurge(_deps: TaskDeps): Task {
  return async (raw, helpers) => {
    payload.parse(raw ?? {});
    const drafts = await untilShortBatch(BATCH, (size) => helpers.withPgClient((c) => purgeExpiredFormDrafts(c, size)));
    if (drafts) helpers.logger.info('expired form drafts purged', { drafts });
  };
}
