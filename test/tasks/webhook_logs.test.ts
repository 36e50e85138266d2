// Secrets, credentials and bodies never reach the logs, even at debug level.
import { Writable } from 'node:stream';
import test from 'ava';
import { setLogLevel, setLogStream } from '../../lib/log.ts';
import { sampleTopicPayload } from '../../pipelines/webhooks/payloads.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { startService } from '../helpers/server.ts';
import { eventually, startTestWorker } from '../helpers/worker.ts';

test('a delivery logged at debug level shows no secret, credential or payload', async (t) => {
  let logs = '';
  const svc = await startService({ WEBHOOK_ALLOW_HOSTS: '127.0.0.1', WEBHOOK_RETRY_SCHEDULE: '1' });
  setLogStream(new Writable({ write: (chunk, _enc, cb) => ((logs += chunk.toString()), cb()) }));
  setLogLevel('debug');
  const worker = await startTestWorker(svc);
  const r = await startReceiver();
  try {
    const c = await svc.oauthClient();
    const a = await svc.agency(c.token);
    const key = await svc.apiKey(a.ownerToken, a.agencyId, 'live'); // credentials are a live key's setting
    const created = await svc.request('PUT', '/v2/webhook-endpoints/form-submission', {
      token: key,
      json: { staging_url: r.url, auth: { kind: 'bearer', token: 'receiver-bearer-789' } },
    });
    r.script({ status: 500, body: 'try again' });
    const data = { ...sampleTopicPayload('form-submission').data, submission_id: 5150 };
    await svc.tdb.db.owner.query(`select app_private.emit_event($1, 'test', 'form-submission', null, $2)`, [a.agencyId, JSON.stringify(data)]);
    await r.waitFor(2);
    await eventually(async () => logs.includes('"msg":"delivery attempt"') && logs.split('"msg":"delivery attempt"').length > 2);
    t.true(logs.length > 0);
    for (const s of [
      created.body.signing_secret,
      'receiver-bearer-789',
      key,
      a.ownerToken,
      c.token,
      (data as { contact?: { email?: string } }).contact?.email,
    ].filter(Boolean)) {
      t.false(logs.includes(s as string), `log contains ${String(s).slice(0, 12)}…`);
    }
    t.false(logs.includes(JSON.stringify(data)), 'no payload in the logs');
  } finally {
    setLogLevel('silent');
    await worker.stop();
    await r.close();
    await svc.close();
  }
});
