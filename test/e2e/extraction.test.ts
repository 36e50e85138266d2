// Policy extraction end to end: HTTP upload → the worker's task chain → a signed `client-submission`
// delivered to a real receiver, whose document_link downloads the uploaded bytes; the client, submission and
// declaration page exist. Text PDF, scanned PDF and a photo.
import { createHmac, timingSafeEqual } from 'node:crypto';
import test from 'ava';
import { finished, policyFixture, upload } from '../helpers/extraction.ts';
import { logoPdf } from '../helpers/logo_pdf.ts';
import { serviceRig } from '../helpers/rig.ts';
import { eventually } from '../helpers/worker.ts';

const rig = serviceRig({ WEBHOOK_ALLOW_HOSTS: '127.0.0.1', WEBHOOK_RETRY_SCHEDULE: '1', WEBHOOK_TIMEOUT_MS: '30000', OCR_ENGINE: 'tesseract-cli' });

async function setup(mode: 'test' | 'live') {
  const c = await rig.svc.oauthClient();
  const a = await rig.svc.agency(c.token);
  const key = await rig.svc.apiKey(a.ownerToken, a.agencyId, mode);
  const staging = await rig.receiver();
  const production = await rig.receiver();
  // The production URL is a live key's to set (a sandbox key may set the staging URL only).
  const liveKey = mode === 'live' ? key : await rig.svc.apiKey(a.ownerToken, a.agencyId, 'live');
  const ep = await rig.svc.request('PUT', '/v2/webhook-endpoints/client-submission', {
    token: liveKey,
    json: { staging_url: `${staging.url}/hook`, production_url: `${production.url}/hook` },
  });
  if (ep.status !== 201) throw new Error(ep.text);
  // Pro plan, so the three uploads and the polling stay inside the per-minute budget.
  await rig.svc.request('PUT', `/v1/agencies/${a.agencyId}/plan`, { token: c.token, json: { plan: 'enterprise', per_minute: 10_000, per_day: 100_000 } });
  return { ...a, key, secret: ep.body.signing_secret as string, staging, production };
}

function signedBy(secret: string, raw: Buffer, header: unknown): boolean {
  const expected = createHmac('sha256', secret).update(raw).digest();
  const given = Buffer.from(String(header ?? ''), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const cases = [
  { file: 'auto_acme_mutual.pdf', method: 'text', holder: ['John', 'Smith'], vehicles: true },
  { file: 'home_granite_scan.pdf', method: 'ocr', holder: null, vehicles: false },
  { file: 'auto_acme_mutual_photo.jpg', method: 'ocr', holder: null, vehicles: true },
];

test('a text PDF, a scanned PDF and a photo each complete and send exactly one signed client-submission whose link downloads the file', async (t) => {
  t.timeout(300_000);
  const a = await setup('test');
  const uploaded: Array<(typeof cases)[number] & { bytes: Buffer; id: string }> = [];
  for (const c of cases) {
    const bytes = policyFixture(c.file);
    const r = await upload(rig.svc, a.key, a.ownerId, bytes, c.file);
    t.is(r.status, 200, r.text);
    t.is(r.body.parsing_status, 'queued');
    t.is(r.body.filename, c.file);
    t.is(r.body.entity_type, 'declaration_page');
    t.is(r.body.agent_id, a.ownerId);
    t.is(r.body.extracted_data, null);
    t.truthy(r.headers.get('x-ratelimit-remaining'));
    uploaded.push({ ...c, bytes, id: r.body.extraction_id as string });
  }
  for (const u of uploaded) {
    const rec = await finished(rig.svc, a.key, a.ownerId, u.id, 180_000);
    t.true(['completed', 'partial'].includes(rec.parsing_status), `${u.file}: ${JSON.stringify(rec)}`);
    t.is(rec.parsing_method, u.method, u.file);
    t.truthy(rec.extracted_data?.policy, u.file);
    t.truthy(rec.client_uuid, u.file);
  }
  await a.staging.waitFor(uploaded.length, 60_000);
  await new Promise((r) => setTimeout(r, 1500)); // nothing more may arrive
  // Exactly one event per extraction; a repeat (at-least-once, after a time-out) carries the same id and bytes.
  const ids = new Map<string, Buffer>();
  for (const got of a.staging.received) {
    const id = String(got.headers['webhook-id']);
    if (ids.has(id)) t.deepEqual(got.raw, ids.get(id), 'a repeat is the same event');
    ids.set(id, got.raw);
  }
  t.is(ids.size, uploaded.length, 'exactly one event per extraction');
  t.is(a.production.received.length, 0, 'test data never goes to the production URL');
  for (const got of a.staging.received) {
    t.true(signedBy(a.secret, got.raw, got.headers['x-signature']));
    t.is(got.json.topic, 'client-submission');
    const data = got.json.data;
    t.truthy(data.policy_type);
    t.true('provider' in data.policy && 'policy_number' in data.policy);
    t.true('first_name' in data.policyholder && 'last_name' in data.policyholder);
    const link = await fetch(data.document_link);
    t.is(link.status, 200);
    const bytes = Buffer.from(await link.arrayBuffer());
    const match = uploaded.find((u) => u.bytes.equals(bytes));
    t.truthy(match, 'the link downloads one of the uploaded files, byte for byte');
    if (match?.vehicles) t.true(Array.isArray(data.vehicles), `${match.file} carries vehicles`);
    const tampered = await fetch(data.document_link.replace(/signature=[^&]+/, 'signature=' + 'A'.repeat(43)));
    t.is(tampered.status, 403);
  }
  // The client model: one client per policyholder, one submission and one declaration page per extraction.
  const { rows } = await rig.svc.tdb.db.owner.query(
    `select e.id, e.client_id, s.id as submission_id, p.id as page_id, p.document_id, c.first_name, c.last_name, c.agent_id
       from app_public.extractions e join app_public.client_submissions s on s.extraction_id = e.id
       join app_public.declaration_pages p on p.submission_id = s.id join app_public.clients c on c.id = e.client_id
      where e.agency_id = $1`,
    [a.agencyId],
  );
  t.is(rows.length, uploaded.length);
  for (const r of rows) t.is(r.agent_id, a.ownerId);
  const smith = rows.find((r) => r.id === uploaded[0].id);
  t.deepEqual([smith.first_name, smith.last_name], uploaded[0].holder);
  const events = await rig.svc.tdb.db.owner.query(`select topic, event_name from app_public.events where agency_id = $1`, [a.agencyId]);
  const names = events.rows.map((e) => e.topic ?? e.event_name).sort();
  t.deepEqual(
    names,
    [
      ...Array(3).fill('client-submission'),
      ...Array(3).fill('client-submission.complete'),
      ...Array(3).fill('client-submission.declaration-page-upload'),
    ].sort(),
  );
});

test('a second document of the same policyholder attaches to the same client; client_uuid attaches to a given client; v1 subscriptions get both events', async (t) => {
  t.timeout(300_000);
  const a = await setup('test');
  const subscriber = await rig.receiver();
  const sub = await rig.svc.request('POST', '/v1/webhooks', { token: a.ownerToken, json: { url: `${subscriber.url}/v1`, events: ['*'] } });
  t.is(sub.status, 200, sub.text);
  const bytes = policyFixture('auto_acme_mutual.pdf');
  const first = await upload(rig.svc, a.key, a.ownerId, bytes, 'first.pdf');
  const r1 = await finished(rig.svc, a.key, a.ownerId, first.body.extraction_id);
  const second = await upload(rig.svc, a.key, a.ownerId, bytes, 'second.pdf');
  const r2 = await finished(rig.svc, a.key, a.ownerId, second.body.extraction_id);
  t.is(r2.client_uuid, r1.client_uuid);
  t.not(r2.client_submission_uuid, r1.client_submission_uuid);
  const other = await upload(rig.svc, a.key, a.ownerId, policyFixture('home_granite.pdf'), 'home.pdf', { client_uuid: r1.client_uuid });
  t.is(other.status, 200, other.text);
  const r3 = await finished(rig.svc, a.key, a.ownerId, other.body.extraction_id);
  t.is(r3.client_uuid, r1.client_uuid, 'the requested client wins over the name on the document');
  const unknown = await upload(rig.svc, a.key, a.ownerId, bytes, 'x.pdf', { client_uuid: crypto.randomUUID() });
  t.is(unknown.status, 404);
  t.deepEqual(Object.keys(unknown.body).sort(), ['error', 'message']);
  // Two v1 events per extraction, each a valid envelope naming the client, submission and declaration page.
  const got = await subscriber.waitFor(6, 60_000);
  // At-least-once: a repeat after a time-out has the same envelope id; count events, not requests.
  const events = [...new Map(got.map((g) => [g.json.id as string, g.json])).values()];
  const byName = (n: string) => events.filter((e) => e.event === n);
  const complete = byName('client-submission.complete');
  const pages = byName('client-submission.declaration-page-upload');
  t.is(complete.length, 3);
  t.is(pages.length, 3);
  t.true(complete.every((e) => e.data.client.uuid === r1.client_uuid));
  t.deepEqual(new Set(complete.map((e) => e.data.submission.uuid)), new Set([r1, r2, r3].map((r) => r.client_submission_uuid)));
  t.deepEqual(new Set(pages.map((e) => e.data.declaration_page.uuid)), new Set([r1, r2, r3].map((r) => r.declaration_page_uuid)));
  t.true(pages.every((e) => e.data.declaration_page.content_type === 'application/pdf' && /^http/.test(e.data.declaration_page.document_link)));
  t.is(complete[0].data.client.agent.id, a.ownerId);
  t.truthy(complete[0].data.policy_data.policy);
});

test('a live event whose first delivery gets 500 arrives again by the retry schedule with the same webhook-id', async (t) => {
  t.timeout(300_000);
  const a = await setup('live');
  a.production.script({ status: 500, body: 'boom' });
  const r = await upload(rig.svc, a.key, a.ownerId, policyFixture('auto_acme_mutual.pdf'), 'policy.pdf');
  t.is(r.status, 200, r.text);
  await finished(rig.svc, a.key, a.ownerId, r.body.extraction_id);
  const [first, second] = await a.production.waitFor(2, 60_000);
  t.is(a.staging.received.length, 0, 'live data goes to the production URL');
  t.is(first.headers['webhook-id'], second.headers['webhook-id']);
  t.deepEqual(first.raw, second.raw);
  const d = await eventually(async () => {
    const q = await rig.svc.tdb.db.owner.query(`select status, attempt_count from app_public.webhook_deliveries where agency_id = $1`, [a.agencyId]);
    return q.rows[0]?.status === 'delivered' && q.rows[0];
  });
  t.is(d.attempt_count, 2);
});

test('a carrier printed only in a logo is read by OCR of the header band in the service too, and the reading says hybrid', async (t) => {
  t.timeout(300_000);
  const a = await setup('test');
  const r = await upload(rig.svc, a.key, a.ownerId, Buffer.from(await logoPdf('HANOVER')), 'logo.pdf');
  t.is(r.status, 200, r.text);
  const rec = await finished(rig.svc, a.key, a.ownerId, r.body.extraction_id as string, 180_000);
  t.true(['completed', 'partial'].includes(rec.parsing_status), JSON.stringify(rec));
  t.regex(String(rec.extracted_data.policy.provider), /hanover/i);
  t.is(rec.parsing_method, 'hybrid', 'the text layer and OCR of the header band');
  t.is(rec.extracted_data.policy.policy_number, '77-AB-120934');
});
