// A document's stages run one at a time in its agency's graphile-worker queue, each queueing the next while it
// holds that queue. graphile-worker's worker looks for its next job before the finished job's completion (not
// awaited) has unlocked the queue, so the next stage used to wait for the runner's next poll (a second by default:
// an analysis over HTTP took 1-2 s for 150 ms of work). The worker is now nudged once the completion has landed:
// with the poll at five seconds, every hand-over inside a queue starts in a fraction of that.
import test from 'ava';
import type { Job } from 'graphile-worker';
import { policyFixture, upload } from '../helpers/extraction.ts';
import { serviceRig } from '../helpers/rig.ts';
import { agencyWithTestKey } from '../helpers/server.ts';
import { eventually, startTestWorker } from '../helpers/worker.ts';

// One queue per agency and kind, so every stage of a document waits in the queue of the stage before it.
const rig = serviceRig({ DOCUMENT_JOBS_PER_AGENCY: '1' }, { worker: false });

const POLL_MS = 5_000;

test('each stage of a document hands its queue to the next without waiting for a poll', async (t) => {
  t.timeout(240_000);
  const { key, ...a } = await agencyWithTestKey(rig.svc);
  const worker = await rig.startWorker((svc) => startTestWorker(svc, { concurrency: 2, pollInterval: POLL_MS }));
  // Per queue: when its last job ended. A job queued before then (by that job: the next stage) waited for the
  // queue: how long after the queue was free it started is the hand-over.
  const endedAt = new Map<number, number>();
  const handOvers: Array<{ task: string; ms: number }> = [];
  worker.events.on('job:start', ({ job }: { job: Job }) => {
    const ended = job.job_queue_id === null ? undefined : endedAt.get(job.job_queue_id);
    if (ended !== undefined && new Date(job.created_at).getTime() <= ended) handOvers.push({ task: job.task_identifier, ms: Date.now() - ended });
  });
  worker.events.on('job:complete', ({ job }: { job: Job }) => {
    if (job.job_queue_id !== null) endedAt.set(job.job_queue_id, Date.now());
  });
  for (const file of ['auto_acme_mutual.pdf', 'coi_alpha_scan.pdf']) {
    const r = await upload(rig.svc, key, a.ownerId, policyFixture(file), file);
    t.is(r.status, 200, r.text);
    const status = await eventually(
      async () => {
        const { rows } = await rig.svc.tdb.db.owner.query<{ status: string }>('select status from app_public.extractions where id = $1', [
          r.body.extraction_id,
        ]);
        return ['completed', 'partial', 'failed'].includes(rows[0]?.status) && rows[0].status;
      },
      120_000,
      `${file}'s extraction`,
    );
    t.not(status, 'failed', file);
  }
  t.true(handOvers.length >= 1, `hand-overs inside a queue: ${JSON.stringify(handOvers)}`);
  for (const h of handOvers) t.true(h.ms < POLL_MS / 2, `${h.task} started ${Math.round(h.ms)} ms after its queue's last job ended`);
});
