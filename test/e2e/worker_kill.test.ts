// At-least-once: a worker process killed with SIGKILL in the middle of a delivery loses nothing; the
// delivery goes out once another worker runs.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { sampleTopicPayload } from '../../pipelines/webhooks/payloads.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { startService } from '../helpers/server.ts';
import { eventually, startTestWorker } from '../helpers/worker.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

test('a worker killed mid-delivery loses nothing once a worker runs again', async (t) => {
  const env = { WEBHOOK_ALLOW_HOSTS: '127.0.0.1', WEBHOOK_RETRY_SCHEDULE: '1', WORKER_STALE_AFTER_SECONDS: '2', WEBHOOK_TIMEOUT_MS: '60000' };
  const svc = await startService(env);
  const receiver = await startReceiver();
  let survivor: Awaited<ReturnType<typeof startTestWorker>> | undefined;
  const child = spawn(process.execPath, [path.join(root, 'bin/svc.ts'), 'worker'], {
    cwd: root,
    env: { ...process.env, ...env, DATABASE_URL: svc.tdb.url, DATA_DIR: svc.dataDir, PUBLIC_URL: svc.url, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const c = await svc.oauthClient();
    const a = await svc.agency(c.token);
    const key = await svc.apiKey(a.ownerToken, a.agencyId);
    await svc.request('PUT', '/v2/webhook-endpoints/form-submission', { token: key, json: { staging_url: `${receiver.url}/hook` } });
    receiver.script('hang'); // the first attempt never gets an answer: the worker is mid-delivery
    await svc.tdb.db.owner.query(`select app_private.emit_event($1, 'test', 'form-submission', null, $2)`, [
      a.agencyId,
      JSON.stringify(sampleTopicPayload('form-submission').data),
    ]);
    await receiver.waitFor(1, 60_000);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    // The first attempt is sent by the worker's send loop (0015): its claim names the loop, whose heartbeat stopped.
    const claimed = await svc.tdb.db.owner.query(`select count(*)::int as n from app_private.deliveries_due where claimed_by is not null and due_at > now()`);
    t.is(claimed.rows[0].n, 1, 'the killed worker left its claim');

    survivor = await startTestWorker(svc);
    await receiver.waitFor(2, 60_000);
    t.deepEqual(receiver.received[1].raw, receiver.received[0].raw, 'the same event is sent again');
    const d = await eventually(async () => {
      const r = await svc.tdb.db.owner.query(`select status, attempt_count from app_public.webhook_deliveries`);
      return r.rows[0]?.status === 'delivered' && r.rows[0];
    });
    t.is(d.attempt_count, 1, 'the interrupted attempt recorded nothing; the second one delivered');
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    await survivor?.stop();
    await receiver.close();
    await svc.close();
  }
});
