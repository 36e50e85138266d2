// A real submission through the real worker to a real receiver: the exact §6.3 payload (with the link's
// metadata, the uploaded file and the ACORD archive), links that work and are re-signed on every read, and
// a receiver that fails the first delivery gets it again by the retry schedule.
import { createHmac } from 'node:crypto';
import test from 'ava';
import { FormSubmissionData } from '../../pipelines/webhooks/payloads.ts';
import { OWNER_ANSWERS, TINY_PDF, publishedForm } from '../helpers/hosted.ts';
import { serviceRig } from '../helpers/rig.ts';
import { agencyWithTestKey } from '../helpers/server.ts';
import { eventually } from '../helpers/worker.ts';
import { zipEntries } from '../helpers/zip.ts';

const rig = serviceRig({ WEBHOOK_ALLOW_HOSTS: '127.0.0.1', WEBHOOK_RETRY_SCHEDULE: '1', WEBHOOK_MAX_ATTEMPTS: '4', WEBHOOK_TIMEOUT_MS: '2000' });

async function setup() {
  const { key, ...a } = await agencyWithTestKey(rig.svc);
  const form = await publishedForm(rig.svc, key, a.agencyId);
  const receiver = await rig.receiver();
  const ep = await rig.svc.request('PUT', '/v2/webhook-endpoints/form-submission', { token: key, json: { staging_url: `${receiver.url}/hooks` } });
  if (ep.status !== 201) throw new Error(ep.text);
  const agent = (await rig.svc.request('GET', `/v1/agencies/${a.agencyId}/agents/${a.ownerId}`, { token: a.ownerToken })).body.data;
  return { ...a, key, form, receiver, secret: ep.body.signing_secret as string, agent };
}

async function snapshotOf(slug: string, publicId: string): Promise<number> {
  const page = await rig.svc.request('GET', `/${slug}/form/${publicId}/home-insurance-quote`);
  return JSON.parse(/id="form-data">(.*?)<\/script>/s.exec(page.text)![1]).snapshot_id;
}

async function consumerSubmits(s: Awaited<ReturnType<typeof setup>>, ctx?: string) {
  const fd = new FormData();
  fd.append('question_id', 'declarations');
  if (ctx) fd.append('ctx', ctx);
  fd.append('file', new Blob([new Uint8Array(TINY_PDF)]), 'my declarations.pdf');
  const up = await rig.svc.request('POST', `/${s.slug}/form/${s.form.public_id}/uploads`, { form: fd });
  if (up.status !== 201) throw new Error(up.text);
  const snapshot_id = await snapshotOf(s.slug, s.form.public_id);
  const r = await rig.svc.request('POST', `/${s.slug}/form/${s.form.public_id}/submissions`, {
    json: { snapshot_id, ctx, answers: { ...OWNER_ANSWERS, declarations: [{ upload_id: up.body.upload_id }] } },
  });
  if (r.status !== 201) throw new Error(r.text);
  return r.body as { submission_id: number; trace_id: string };
}

test('a submission reaches the receiver as the exact §6.3 payload, with metadata, file links and the ACORD archive', async (t) => {
  const s = await setup();
  const link = await rig.svc.request('POST', `/v2/forms/${s.form.id}/links`, {
    token: s.key,
    json: { agent_id: s.ownerId, metadata: { crm_id: 'lead-42', campaign: 'spring' } },
    headers: { 'Idempotency-Key': crypto.randomUUID() },
  });
  const ctx = new URL(link.body.url).searchParams.get('ctx')!;
  const before = Date.now();
  const created = await consumerSubmits(s, ctx);
  const [got] = await s.receiver.waitFor(1);
  t.is(got.path, '/hooks');
  t.is(got.headers['x-signature'], createHmac('sha256', s.secret).update(got.raw).digest('hex'));
  t.is(got.json.topic, 'form-submission');
  const data = got.json.data;
  t.notThrows(() => FormSubmissionData.parse(data), 'strict §6.3 schema');
  t.deepEqual(Object.keys(data).sort(), ['acord', 'agent', 'answers', 'contact', 'form', 'metadata', 'submission_id', 'submitted_at', 'trace_id']);
  t.deepEqual(data.form, { id: s.form.id, public_id: s.form.public_id, name: 'Home insurance quote', insurance_line: 'homeowners' });
  t.is(data.submission_id, created.submission_id);
  t.is(data.trace_id, created.trace_id);
  t.true(Date.parse(data.submitted_at) >= before - 1000 && data.submitted_at.endsWith('Z'));
  t.deepEqual(data.agent, { id: s.ownerId, name: `${s.agent.first_name} ${s.agent.last_name}`, email: s.agent.email });
  t.deepEqual(data.contact, { name: 'Zoë Alvarez', email: 'zoe@example.com', phone: '512 555 0142' });
  t.deepEqual(data.metadata, { crm_id: 'lead-42', campaign: 'spring' });
  const byId = Object.fromEntries(data.answers.map((a: { question_id: string }) => [a.question_id, a]));
  t.deepEqual(byId.first_name, { question_id: 'first_name', label: 'First name', type: 'short_text', value: 'Zoë' });
  t.deepEqual(byId.pet_count, { question_id: 'pet_count', label: 'How many pets?', type: 'number', value: 2 });
  t.deepEqual(byId.home_address.value, { line1: '12 Elm St', city: 'Austin', state: 'TX', postal_code: '78701' });
  t.deepEqual(byId.household.value, [{ name: 'Zoë Alvarez', born: '1990-04-02' }]);
  t.deepEqual(byId.protections.value, ['Smoke detectors']);
  t.deepEqual(
    data.answers.map((a: { question_id: string }) => a.question_id),
    [
      'first_name',
      'last_name',
      'email',
      'phone',
      'has_pets',
      'pet_count',
      'renting',
      'home_address',
      'year_built',
      'roof',
      'protections',
      'household',
      'declarations',
      'notes',
    ],
  );
  const [file] = byId.declarations.value;
  t.like(file, { filename: 'my declarations.pdf', content_type: 'application/pdf' });
  const download = await fetch(file.url);
  t.is(download.status, 200);
  t.deepEqual(Buffer.from(await download.arrayBuffer()), TINY_PDF);
  t.like(data.acord, { is_acord_ready: true, form_ids: ['80'] });
  const zip = Buffer.from(await (await fetch(data.acord.archive_url)).arrayBuffer());
  t.deepEqual(zipEntries(zip), ['ACORD_80.pdf'], 'the zip lists exactly form_ids');

  // The record keeps the ACORD report; GET re-signs the links on every read.
  const first = await rig.svc.request('GET', `/v2/submissions/${created.submission_id}`, { token: s.key });
  t.is(first.status, 200);
  const { acord_report, ...rest } = first.body;
  t.deepEqual(
    rest.answers.map((a: { question_id: string }) => a.question_id),
    data.answers.map((a: { question_id: string }) => a.question_id),
  );
  t.deepEqual({ ...rest, answers: undefined, acord: undefined }, { ...data, answers: undefined, acord: undefined });
  t.true(
    acord_report.missing_fields.some((m: { field: string }) => m.field === 'ACORD80.Policy.EffectiveDate'),
    'effective date was not asked',
  );
  await new Promise((r) => setTimeout(r, 1100));
  const second = await rig.svc.request('GET', `/v2/submissions/${created.submission_id}`, { token: s.key });
  const expires = (u: string) => Number(new URL(u).searchParams.get('expires'));
  t.true(expires(second.body.acord.archive_url) > expires(first.body.acord.archive_url), 'a later read signs a later expiry');
  t.true(expires(second.body.answers.find((a: { type: string }) => a.type === 'file_upload').value[0].url) > expires(file.url));
  t.is((await fetch(second.body.acord.archive_url)).status, 200);
});

test('a receiver that fails the first delivery of a real submission gets it again by the retry schedule', async (t) => {
  const s = await setup();
  s.receiver.script({ status: 503, body: 'busy' });
  const created = await consumerSubmits(s);
  const [a, b] = await s.receiver.waitFor(2);
  t.deepEqual(a.raw, b.raw, 'the same bytes again');
  t.is(b.json.data.submission_id, created.submission_id);
  const status = await eventually(async () => {
    const d = (await rig.svc.request('GET', '/v2/webhook-endpoints/form-submission/deliveries', { token: s.key })).body.data;
    return d[0]?.status === 'delivered' && d[0];
  });
  t.is(status.attempt_count, 2);
});

test('a form without ACORD fields sends no acord object, and the event comes from the SQL state function', async (t) => {
  const s = await setup();
  const plain = await publishedForm(rig.svc, s.key, s.agencyId, 'Callback request', [
    { id: 's', name: 'Call me', questions: [{ id: 'name', type: 'short_text', label: 'Your name', required: true }] },
  ]);
  const page = await rig.svc.request('GET', `/${s.slug}/form/${plain.public_id}/callback-request`);
  const snapshot_id = JSON.parse(/id="form-data">(.*?)<\/script>/s.exec(page.text)![1]).snapshot_id;
  const r = await rig.svc.request('POST', `/${s.slug}/form/${plain.public_id}/submissions`, { json: { snapshot_id, answers: { name: 'Kim' } } });
  t.is(r.status, 201);
  const [got] = await s.receiver.waitFor(1);
  t.is(got.json.data.acord, undefined);
  t.deepEqual(got.json.data.contact, { name: 'Kim' });
  const row = await rig.svc.tdb.db.owner.query(
    'select s.status, e.topic, e.data from app_public.submissions s join app_public.events e on e.id = s.event_id where s.id = $1',
    [r.body.submission_id],
  );
  t.like(row.rows[0], { status: 'complete', topic: 'form-submission' });
  t.is(row.rows[0].data.submission_id, r.body.submission_id);
  const direct = await t.throwsAsync(
    rig.svc.tdb.db.owner.query(`update app_public.submissions set status = 'processing' where id = $1`, [r.body.submission_id]),
  );
  t.regex(direct!.message, /changes only through its state function/);
});

test('a submit repeated with its client key (a lost answer, a double click) makes one submission and one webhook', async (t) => {
  const s = await setup();
  const fd = new FormData();
  fd.append('question_id', 'declarations');
  fd.append('file', new Blob([new Uint8Array(TINY_PDF)]), 'decl.pdf');
  const up = await rig.svc.request('POST', `/${s.slug}/form/${s.form.public_id}/uploads`, { form: fd });
  t.is(up.status, 201, up.text);
  const snapshot_id = await snapshotOf(s.slug, s.form.public_id);
  const client_key = crypto.randomUUID();
  const body = { snapshot_id, client_key, answers: { ...OWNER_ANSWERS, declarations: [{ upload_id: up.body.upload_id }] } };
  const send = () => rig.svc.request('POST', `/${s.slug}/form/${s.form.public_id}/submissions`, { json: body });
  // A double click: both in flight at once; then a retry after the answer was lost.
  const [a, b] = await Promise.all([send(), send()]);
  const c = await send();
  for (const r of [a, b, c]) t.is(r.status, 201, r.text);
  t.is(b.body.submission_id, a.body.submission_id);
  t.is(c.body.submission_id, a.body.submission_id);
  t.is(c.body.trace_id, a.body.trace_id);
  t.is(c.headers.get('idempotent-replayed'), 'true');
  t.is([a, b].filter((r) => r.headers.get('idempotent-replayed') === 'true').length, 1, 'exactly one of the two made it');
  const rows = await rig.svc.tdb.db.owner.query('select id from app_public.submissions where client_key = $1', [client_key]);
  t.deepEqual(
    rows.rows.map((r) => Number(r.id)),
    [a.body.submission_id],
  );
  const [got] = await s.receiver.waitFor(1);
  t.is(got.json.data.submission_id, a.body.submission_id);
  // Nothing else is on its way: no finalize job left, no second event about this form.
  await eventually(async () => {
    const left = await rig.svc.tdb.db.owner.query(`select 1 from graphile_worker.jobs where task_identifier = 'submissions__finalize'`);
    return left.rowCount === 0;
  });
  const events = await rig.svc.tdb.db.owner.query(
    `select count(*)::int n from app_public.events where topic = 'form-submission' and data->'form'->>'public_id' = $1`,
    [s.form.public_id],
  );
  t.is(events.rows[0].n, 1);
  t.is(s.receiver.received.length, 1);
  // Another filled form (a new key) with the same answers is another submission.
  const again = await rig.svc.request('POST', `/${s.slug}/form/${s.form.public_id}/submissions`, {
    json: { snapshot_id, client_key: crypto.randomUUID(), answers: OWNER_ANSWERS },
  });
  t.is(again.status, 201, again.text);
  t.not(again.body.submission_id, a.body.submission_id);
  t.is(again.headers.get('idempotent-replayed'), null);
  const bad = await rig.svc.request('POST', `/${s.slug}/form/${s.form.public_id}/submissions`, { json: { ...body, client_key: 'not-a-uuid' } });
  t.is(bad.status, 422);
});

test('an upload no submission used is deleted after the retention, with its file; a submitted one stays', async (t) => {
  const s = await setup();
  const uploadOne = async (name: string) => {
    const fd = new FormData();
    fd.append('question_id', 'declarations');
    fd.append('file', new Blob([new Uint8Array(TINY_PDF)]), name);
    const up = await rig.svc.request('POST', `/${s.slug}/form/${s.form.public_id}/uploads`, { form: fd });
    if (up.status !== 201) throw new Error(up.text);
    const row = await rig.svc.tdb.db.owner.query('select blob_key from app_public.submission_uploads where public_id = $1', [up.body.upload_id]);
    return { id: up.body.upload_id as string, blobKey: row.rows[0].blob_key as string };
  };
  const abandoned = await uploadOne('left.pdf');
  const fresh = await uploadOne('fresh.pdf');
  const used = await uploadOne('used.pdf');
  // Uploads used to be stored under a key made of their content: an abandoned one may share its file with a used one.
  const sharing = await uploadOne('same-bytes.pdf');
  await rig.svc.tdb.db.owner.query('update app_public.submission_uploads set blob_key = $2 where public_id = $1', [sharing.id, used.blobKey]);
  const snapshot_id = await snapshotOf(s.slug, s.form.public_id);
  const r = await rig.svc.request('POST', `/${s.slug}/form/${s.form.public_id}/submissions`, {
    json: { snapshot_id, answers: { ...OWNER_ANSWERS, declarations: [{ upload_id: used.id }] } },
  });
  t.is(r.status, 201, r.text);
  // Two days pass for the abandoned and the submitted file; the fresh one was uploaded just now.
  await rig.svc.tdb.db.owner.query(`update app_public.submission_uploads set created_at = now() - interval '49 hours' where public_id = any($1::uuid[])`, [
    [abandoned.id, used.id, sharing.id],
  ]);
  await rig.svc.tdb.db.owner.query(`select graphile_worker.add_job('maintenance__purge', '{}'::json)`);
  await eventually(async () => (await rig.svc.deps.blobs.get(abandoned.blobKey)) === undefined, 20_000, 'the abandoned file to be deleted');
  const left = await rig.svc.tdb.db.owner.query('select public_id::text from app_public.submission_uploads where public_id = any($1::uuid[])', [
    [abandoned.id, fresh.id, used.id, sharing.id],
  ]);
  t.deepEqual(left.rows.map((x) => x.public_id).sort(), [fresh.id, used.id].sort());
  t.truthy(await rig.svc.deps.blobs.get(fresh.blobKey));
  t.truthy(await rig.svc.deps.blobs.get(used.blobKey), 'a file another upload still holds is kept');
  const late = await rig.svc.request('POST', `/${s.slug}/form/${s.form.public_id}/submissions`, {
    json: { snapshot_id, answers: { ...OWNER_ANSWERS, declarations: [{ upload_id: abandoned.id }] } },
  });
  t.is(late.status, 422, 'a page still naming the deleted upload is asked to upload it again');
  t.is(late.body.errors[0].pointer, '/answers/declarations/0');
});
