// How a worker process stays known to be alive and keeps no job another process could start: its heartbeat
// period and the local-queue settings of its graphile-worker pool (tasks/index.ts runs both).
import type { RunnerOptions } from 'graphile-worker';

type WorkerOptions = NonNullable<NonNullable<RunnerOptions['preset']>['worker']>;

/** How long a job fetched into a process's local queue may wait there before it is returned to the queue. */
export const LOCAL_QUEUE_TTL_MS = 1000;

/**
 * Milliseconds between a process's heartbeats: five beats per WORKER_STALE_AFTER_SECONDS, so a live process is
 * never mistaken for a dead one for one late beat, and a dead one is noticed within 1.2 times the setting.
 */
export function heartbeatIntervalMs(staleAfterSeconds: number): number {
  return Math.max(400, (staleAfterSeconds * 1000) / 5);
}

/**
 * The pool's preset. It fetches (and locks) a few jobs per round trip instead of one per job, and completes
 * finished jobs in one statement: under load the queue costs a fraction of a round trip per job. A job fetched but
 * not started within LOCAL_QUEUE_TTL_MS goes back to the queue, so a busy process does not sit on long jobs (OCR
 * pages) that an idle one could start now; a killed process's fetched jobs are released by the heartbeat, as its
 * running ones are.
 */
export function workerPreset(concurrency: number): WorkerOptions {
  return {
    localQueue: { size: Math.max(2, concurrency * 2), ttl: LOCAL_QUEUE_TTL_MS },
    completeJobBatchDelay: 0,
    failJobBatchDelay: 0,
  };
}
