// Delete stored files that no document holds any more (a client erasure lists them in app_private.expired_blobs in
// the same transaction as the erasure). Each key is deleted from the blob store first and forgotten after, so a
// crash in between only repeats a delete; a failure throws and graphile-worker retries the sweep with backoff, and
// the hourly documents__expire deletes whatever listed blob is still left.
import type { Task } from 'graphile-worker';
import { z } from 'zod';
import { blobsToSweep, forgetSweptBlob } from '../db/queries/clients.ts';
import { untilShortBatch } from './batches.ts';
import { taskBlobs, type TaskDeps } from './context.ts';

const payload = z.object({}).strict();
const BATCH = 100;

export function blobsSweep(deps: TaskDeps): Task {
  return async (raw, helpers) => {
    payload.parse(raw ?? {});
    const swept = await untilShortBatch(BATCH, async (size) => {
      const keys = await helpers.withPgClient((c) => blobsToSweep(c, size));
      for (const key of keys) {
        await taskBlobs(deps).delete(key);
        await helpers.withPgClient((c) => forgetSweptBlob(c, key));
      }
      return keys.length;
    });
    helpers.logger.debug('swept erased files', { swept });
  };
}
