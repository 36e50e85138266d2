// Bulk recovery of failed deliveries end to end (issue 31): a receiver is down for 200 events (each delivery ends
// failed), comes back, and one POST …/recover sends every one again through the real worker, in the original order,
// under its original webhook-id, each once; the same window is the same recovery; a sandbox key recovers test
// deliveries only; a v1 subscription recovers the same way; bad windows are refused in each surface's shape; the
// dashboard's button shows the count before confirming (screenshots in the temp dir's recovery-screens).
import { mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { assertAccessible, axe, browserTest, launchBrowser, VIEWPORTS } from '../helpers/browser.ts';
import { sampleV1Event } from '../../pipelines/webhooks/payloads.ts';
import { formData, serviceRig } from '../helpers/rig.ts';
import { eventually } from '../helpers/worker.ts';

// One attempt: a delivery the receiver refuses ends failed at once (the outage outlived its retries).
const rig = serviceRig({ WEBHOOK_ALLOW_HOSTS: '127.0.0.1', WEBHOOK_MAX_ATTEMPTS: '1' });
const { receiver } = rig;

const failedCount = (agencyId: number, mode: string) =>
  rig.svc.tdb.db.owner
    .query<{ n: number }>(`select count(*)::int as n from app_public.webhook_deliveries where agency_id = $1 and mode = $2 and status = 'failed'`, [
      agencyId,
      mode,
    ])
    .then((r) => r.rows[0].n);
const down = (n: number) => Array.from({ length: n }, () => ({ status: 503, body: 'down for maintenance' }));
const recover = (key: string, body: unknown) => rig.svc.request('POST', '/v2/webhook-endpoints/form-submission/recover', { token: key, json: body });

test.serial('a receiver down for 200 events gets each once, in order, under its webhook-id, after one recovery', async (t) => {
  t.timeout(300_000);
  const a = await rig.agency();
  const staging = await receiver();
  const production = await receiver();
  t.is(
    (
      await rig.svc.request('PUT', '/v2/webhook-endpoints/form-submission', {
        token: a.live,
        json: { staging_url: staging.url, production_url: production.url },
      })
    ).status,
    201,
  );
  const since = new Date(Date.now() - 1000).toISOString();

  // The outage: 200 test events and 5 live ones, every delivery refused.
  staging.script(...down(200));
  production.script(...down(5));
  for (let i = 1; i <= 200; i++) await rig.emit(a.agencyId, 'test', 'form-submission', null, formData(i));
  for (let i = 1; i <= 5; i++) await rig.emit(a.agencyId, 'live', 'form-submission', null, formData(1000 + i));
  await eventually(async () => (await failedCount(a.agencyId, 'test')) === 200 && (await failedCount(a.agencyId, 'live')) === 5, 120_000, 'the failures');
  const outage = staging.received.slice(0, 200);
  const idOf = new Map(outage.map((r) => [r.json.data.submission_id as number, r.headers['webhook-id'] as string]));
  t.is(idOf.size, 200);

  // The receiver is back (every request now gets 200). One recovery with the sandbox key.
  const r = await recover(a.test, { since });
  t.is(r.status, 202, r.text);
  t.like(r.body, { status: 'running', mode: 'test', total: 200, queued: 1, until: null });
  t.is(r.headers.get('location'), `/v2/webhook-endpoints/form-submission/recoveries/${r.body.id}`);
  const again = await recover(a.test, { since });
  t.is(again.status, 202);
  t.is(again.body.id, r.body.id, 'the same window is the same recovery');

  const done = await eventually(
    async () => {
      const g = await rig.svc.request('GET', `/v2/webhook-endpoints/form-submission/recoveries/${r.body.id}`, { token: a.test });
      return g.body.status === 'completed' && g.body.delivered === 200 && g.body;
    },
    240_000,
    'the recovery',
  );
  t.like(done, { total: 200, queued: 200, delivered: 200, failed: 0, pending: 0 });
  t.truthy(done.completed_at);

  const recovered = staging.received.slice(200);
  t.is(recovered.length, 200, 'each once');
  t.deepEqual(
    recovered.map((x) => x.json.data.submission_id),
    Array.from({ length: 200 }, (_, i) => i + 1),
    'in the original order',
  );
  t.true(
    recovered.every((x) => x.headers['webhook-id'] === idOf.get(x.json.data.submission_id)),
    'under the original webhook-id',
  );
  t.is(production.received.length, 5, 'a sandbox key sent no live delivery again');
  t.is((await failedCount(a.agencyId, 'test')) - 200, 0, 'the originals stay failed in the log; their redeliveries are delivered');

  // Nothing left to recover in the window: a new window finds none; the live key recovers the live failures.
  const none = await recover(a.test, { since, until: new Date().toISOString() });
  t.like(none.body, { total: 0, status: 'completed' });
  const live = await recover(a.live, { since });
  t.like(live.body, { mode: 'live', total: 5 });
  await production.waitFor(10, 60_000);
  t.deepEqual(
    production.received.slice(5).map((x) => x.json.data.submission_id),
    [1001, 1002, 1003, 1004, 1005],
  );
  // A sandbox key cannot read the live recovery.
  t.is((await rig.svc.request('GET', `/v2/webhook-endpoints/form-submission/recoveries/${live.body.id}`, { token: a.test })).status, 404);
});

test('bad windows are refused naming the field; another agency’s endpoint is 404; agents need admin', async (t) => {
  const a = await rig.agency();
  const rec = await receiver();
  t.is((await rig.svc.request('PUT', '/v2/webhook-endpoints/form-submission', { token: a.test, json: { staging_url: rec.url } })).status, 201);
  const backwards = await recover(a.test, { since: '2026-11-02T00:00:00Z', until: '2026-11-01T00:00:00Z' });
  t.is(backwards.status, 422);
  t.regex(backwards.headers.get('content-type')!, /problem\+json/);
  t.is(backwards.body.errors?.[0]?.pointer, '/until');
  const future = await recover(a.test, { since: new Date(Date.now() + 3_600_000).toISOString() });
  t.is(future.status, 422);
  const notTime = await recover(a.test, { since: 'yesterday' });
  t.is(notTime.status, 422);
  t.true(JSON.stringify(notTime.body).includes('since'));
  const extra = await recover(a.test, { since: '2026-11-01T00:00:00Z', topic: 'x' });
  t.is(extra.status, 422);
  const b = await rig.agency();
  t.is((await recover(b.test, { since: '2026-11-01T00:00:00Z' })).status, 404, 'no endpoint of this topic in that agency');
  t.is((await rig.svc.request('GET', `/v2/webhook-endpoints/form-submission/recoveries/${crypto.randomUUID()}`, { token: a.test })).status, 404);
});

test('a v1 subscription recovers its failed deliveries the same way, in the v1 envelope', async (t) => {
  const a = await rig.agency();
  const rec = await receiver();
  const made = await rig.svc.request('POST', '/v1/webhooks', { token: a.ownerToken, json: { url: rec.url, events: ['*'] } });
  t.is(made.status, 200, made.text);
  const since = new Date(Date.now() - 1000).toISOString();
  rec.script(...down(3));
  const ev = sampleV1Event('client.updated');
  for (let i = 0; i < 3; i++) await rig.emit(a.agencyId, i === 2 ? 'live' : 'test', null, ev.event, ev.data);
  await eventually(async () => (await failedCount(a.agencyId, 'test')) + (await failedCount(a.agencyId, 'live')) === 3, 60_000, 'the failures');
  const r = await rig.svc.request('POST', `/v1/webhooks/${made.body.data.uuid}/recover`, { token: a.ownerToken, json: { since } });
  t.is(r.status, 202, r.text);
  t.like(r.body.data, { total: 3, mode: null }, 'an agent token recovers both modes');
  await rec.waitFor(6, 60_000);
  t.deepEqual(
    rec.received.slice(3).map((x) => x.headers['webhook-id']),
    rec.received.slice(0, 3).map((x) => x.headers['webhook-id']),
  );
  const bad = await rig.svc.request('POST', `/v1/webhooks/${made.body.data.uuid}/recover`, { token: a.ownerToken, json: { since: 'soon' } });
  t.is(bad.status, 422);
  t.truthy(bad.body.error?.message, 'the v1 error shape');
});

browserTest('the dashboard’s “Recover failed deliveries since…” shows the count, then sends them again', async (t) => {
  const screens = path.join(os.tmpdir(), 'recovery-screens');
  await mkdir(screens, { recursive: true });
  const a = await rig.agency();
  const rec = await receiver();
  t.is((await rig.svc.request('PUT', '/v2/webhook-endpoints/form-submission', { token: a.test, json: { staging_url: rec.url } })).status, 201);
  rec.script(...down(3));
  for (let i = 1; i <= 3; i++) await rig.emit(a.agencyId, 'test', 'form-submission', null, formData(i));
  await eventually(async () => (await failedCount(a.agencyId, 'test')) === 3, 60_000, 'the failures');

  const link = await rig.svc.request('POST', `/v1/agents/${a.ownerId}/dashboard-link`, { token: a.oauth.token });
  const browser = await launchBrowser();
  try {
    const page = await (await browser.newContext({ viewport: VIEWPORTS.desktop })).newPage();
    await page.goto(link.body.data.url);
    await page.goto(`${rig.svc.url}/dashboard/test/webhooks`);
    await page.getByRole('link', { name: 'Recover failed deliveries since…' }).first().click();
    await page.getByLabel('Failed since (UTC)').fill(new Date(Date.now() - 3_600_000).toISOString().slice(0, 16));
    await page.getByRole('button', { name: 'Count failed deliveries' }).click();
    t.true(await page.getByRole('heading', { name: /^3 failed deliveries since/ }).isVisible(), 'the count before confirming');
    t.is(rec.received.length, 3, 'nothing is sent before confirming');
    assertAccessible(t, await axe(page), 'recover (count)');
    for (const [name, vp] of Object.entries(VIEWPORTS)) {
      await page.setViewportSize(vp);
      await page.screenshot({ path: path.join(screens, `recover-count-${name}.png`), fullPage: true });
    }
    await page.getByRole('button', { name: 'Send 3 again' }).click();
    await page.waitForURL('**/recoveries/*');
    await rec.waitFor(6, 60_000);
    await eventually(
      async () => {
        await page.reload();
        return (await page.locator('.dash-status').first().innerText()) === 'completed';
      },
      60_000,
      'the recovery page',
    );
    t.true(await page.getByText('Delivered').isVisible());
    assertAccessible(t, await axe(page), 'recovery progress');
    await page.screenshot({ path: path.join(screens, 'recovery-desktop.png'), fullPage: true });
  } finally {
    await browser.close();
  }
});
