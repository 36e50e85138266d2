// Form drafts (0027) as SQL: a hosted form saved part-way is read only by its agency in its mode, written only through
// its state functions, refused to another form or agent, after it expired and after it was submitted; a draft queues
// no job and emits no event until its submission does; the uploads it names are held while it lives and go with it.
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { withIdentity, type Identity } from '../../db/pool.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { as, queuedJobs, seedAgent, sqlError, twoAgencies, type SeededAgency } from '../helpers/seed.ts';

let tdb: TestDatabase, a: SeededAgency, b: SeededAgency;
let otherAgent: number;
const ids: Record<string, number> = {};
const consumer: Identity = { role: 'system' };

async function publishedForm(agency: SeededAgency, mode: 'test' | 'live', name: string): Promise<{ form: number; snapshot: number }> {
  const f = await tdb.db.owner.query(`insert into app_public.forms (agency_id, mode, name, insurance_line) values ($1, $2, $3, 'renters') returning id`, [
    agency.agencyId,
    mode,
    name,
  ]);
  await as(tdb, agency.adminKey(mode), 'select app_public.publish_form($1)', [f.rows[0].id]);
  const s = await tdb.db.owner.query('select live_snapshot_id from app_public.forms where id = $1', [f.rows[0].id]);
  return { form: f.rows[0].id, snapshot: s.rows[0].live_snapshot_id };
}

test.before(async () => {
  ({ tdb, a, b } = await twoAgencies('drafts'));
  otherAgent = await seedAgent(tdb, a, 'drafts-a2');
  const f = await publishedForm(a, 'test', 'Renters intake');
  ids.form = f.form;
  ids.snapshot = f.snapshot;
  const g = await publishedForm(a, 'test', 'Another form');
  ids.otherForm = g.form;
  ids.otherSnapshot = g.snapshot;
});
test.after.always(async () => tdb?.drop());

let blobSeq = 0;
async function upload(form = ids.form, agent = a.ownerId, question = 'docs'): Promise<{ id: string; blobKey: string }> {
  const blobKey = `uploads/${(++blobSeq).toString(16).padStart(64, '0')}.pdf`;
  const r = await as(tdb, consumer, `select app_private.record_upload($1, $2, $3, $4, 'a.pdf', 'application/pdf', 10) as id`, [form, agent, question, blobKey]);
  return { id: r.rows[0].id, blobKey };
}

interface Draft {
  public_id: string;
  expires_at: Date;
  status: string;
  step: number;
  answers: Record<string, unknown>;
}

async function createDraft(o: { form?: number; snapshot?: number; agent?: number; uploads?: string[]; ttl?: number; metadata?: object } = {}): Promise<Draft> {
  const r = await as<Draft>(
    tdb,
    consumer,
    `select public_id, expires_at, status, step, answers from app_private.create_form_draft($1, $2, $3, $4, $5, $6, 1, '{0}', $7, $8::uuid[])`,
    [
      o.form ?? ids.form,
      o.agent ?? a.ownerId,
      o.snapshot ?? ids.snapshot,
      JSON.stringify(o.metadata ?? { crm_id: 'lead-1' }),
      randomUUID(),
      o.ttl ?? 3600,
      JSON.stringify({ name: 'Kim', docs: (o.uploads ?? []).map((u) => ({ upload_id: u })) }),
      o.uploads ?? [],
    ],
  );
  return r.rows[0];
}

const save = (draft: string, o: { form?: number; agent?: number; uploads?: string[]; ttl?: number; step?: number } = {}) =>
  as<Draft>(
    tdb,
    consumer,
    `select public_id, expires_at, status, step, answers from app_private.save_form_draft($1, $2, $3, $4, $5, '{0,1}', $6, $7::uuid[])`,
    [draft, o.form ?? ids.form, o.agent ?? a.ownerId, o.ttl ?? 3600, o.step ?? 2, JSON.stringify({ name: 'Kim Lee' }), o.uploads ?? []],
  );

const resumed = async (draft: string) =>
  (await as(tdb, consumer, 'select * from app_private.form_draft($1)', [draft])).rows[0] as
    { state: string; step: number; history: number[]; answers: Record<string, unknown>; metadata: object; files: { upload_id: string }[] } | undefined;

const submission = async (agent = a.ownerId, form = ids.form, snapshot = ids.snapshot) =>
  (await as(tdb, consumer, `select id from app_private.create_submission($1, $2, $3, '[]', null, '{}', '{}', '{}')`, [form, snapshot, agent])).rows[0]
    .id as number;

const heldBy = async (uploadId: string) =>
  (await tdb.db.owner.query('select draft_id from app_public.submission_uploads where public_id = $1', [uploadId])).rows[0]?.draft_id ?? null;

test.serial('a draft queues no job and emits no event; saving it moves its expiry and keeps what the page had', async (t) => {
  const jobsBefore = (await tdb.db.owner.query('select count(*)::int n from graphile_worker._private_jobs')).rows[0].n;
  const eventsBefore = (await tdb.db.owner.query('select count(*)::int n from app_public.events')).rows[0].n;
  const d = await createDraft({ ttl: 60 });
  t.is(d.status, 'open');
  t.true(d.expires_at.getTime() > Date.now() + 50_000 && d.expires_at.getTime() <= Date.now() + 61_000);
  const s = (await save(d.public_id, { ttl: 7200 })).rows[0];
  t.true(s.expires_at.getTime() > Date.now() + 7000_000, 'a save gives the draft its whole lifetime again');
  t.is(s.step, 2);
  const r = await resumed(d.public_id);
  t.like(r, { state: 'open', step: 2, history: [0, 1], answers: { name: 'Kim Lee' }, metadata: { crm_id: 'lead-1' } });
  t.is((await tdb.db.owner.query('select count(*)::int n from graphile_worker._private_jobs')).rows[0].n, jobsBefore, 'no job: a draft is not a submission');
  t.is((await tdb.db.owner.query('select count(*)::int n from app_public.events')).rows[0].n, eventsBefore, 'no event, so no webhook');
  t.is((await tdb.db.owner.query('select count(*)::int n from app_public.submissions where form_id = $1', [ids.form])).rows[0].n, 0);
});

test('form_drafts: agency B, agency A’s live mode and an anonymous consumer read none of A’s test drafts', async (t) => {
  await createDraft();
  const count = (who: Identity) => withIdentity(tdb.db, who, async (c) => (await c.query('select 1 from app_public.form_drafts')).rowCount);
  t.is(await count(b.adminKey('test')), 0);
  t.is(await count(a.adminKey('live')), 0, 'mode isolation');
  t.true((await count(a.adminKey('test')))! >= 1);
  t.is(await count(consumer), 0, 'the hosted page reads drafts only through app_private.form_draft');
  for (const sql of ['delete from app_public.form_drafts', `update app_public.form_drafts set answers = '{}'`]) {
    t.is((await sqlError(as(tdb, a.adminKey('test'), sql))).code, '42501', sql);
  }
  t.is((await sqlError(tdb.db.owner.query(`update app_public.form_drafts set status = 'submitted'`))).code, 'STATE', 'status only through its function');
});

test('a draft of another form, another agent or another agency is not found; a foreign snapshot is refused', async (t) => {
  const d = await createDraft();
  t.is((await sqlError(save(d.public_id, { form: ids.otherForm }))).code, 'NTFND', 'another form');
  t.is((await sqlError(save(d.public_id, { agent: otherAgent }))).code, 'NTFND', 'another agent of the agency');
  t.is((await sqlError(save(randomUUID()))).code, 'NTFND', 'an unknown draft');
  t.is((await sqlError(createDraft({ agent: b.ownerId }))).code, 'NTFND', 'an agent of another agency');
  t.is((await sqlError(createDraft({ snapshot: ids.otherSnapshot }))).code, 'SNAPS', 'a snapshot of another form');
  const sub = await submission();
  t.is((await sqlError(as(tdb, consumer, 'select app_private.submit_form_draft($1, $2, $3, $4)', [d.public_id, ids.otherForm, a.ownerId, sub]))).code, 'NTFND');
  t.is((await sqlError(as(tdb, consumer, 'select app_private.submit_form_draft($1, $2, $3, $4)', [d.public_id, ids.form, otherAgent, sub]))).code, 'NTFND');
  const theirs = await submission(otherAgent);
  t.is(
    (await sqlError(as(tdb, consumer, 'select app_private.submit_form_draft($1, $2, $3, $4)', [d.public_id, ids.form, a.ownerId, theirs]))).code,
    'NTFND',
    'a submission of another agent does not spend this draft',
  );
  t.is((await resumed(d.public_id))!.state, 'open', 'nothing refused changed the draft');
});

test('an expired draft takes no save and no submit; its state says so', async (t) => {
  const d = await createDraft();
  await tdb.db.owner.query(
    `update app_public.form_drafts set expires_at = now() - interval '1 second', created_at = now() - interval '1 hour' where public_id = $1`,
    [d.public_id],
  );
  t.is((await resumed(d.public_id))!.state, 'expired');
  t.is((await sqlError(save(d.public_id))).code, 'DRFTX');
  const sub = await submission();
  t.is((await sqlError(as(tdb, consumer, 'select app_private.submit_form_draft($1, $2, $3, $4)', [d.public_id, ids.form, a.ownerId, sub]))).code, 'DRFTX');
});

test('submitting spends the draft once: answers dropped, repeated by the same submission, refused to another', async (t) => {
  const kept = await upload();
  const removedLate = await upload();
  const d = await createDraft({ uploads: [kept.id, removedLate.id] });
  const sub = (
    await as(tdb, consumer, `select id from app_private.create_submission($1, $2, $3, '[]', null, '{}', '{}', $4::uuid[])`, [
      ids.form,
      ids.snapshot,
      a.ownerId,
      [kept.id],
    ])
  ).rows[0].id as number;
  const submit = (s: number) =>
    as(tdb, consumer, 'select status, answers, submission_id from app_private.submit_form_draft($1, $2, $3, $4)', [d.public_id, ids.form, a.ownerId, s]);
  const r = (await submit(sub)).rows[0];
  t.like(r, { status: 'submitted', answers: {}, submission_id: sub });
  t.is((await submit(sub)).rows[0].submission_id, sub, 'the same submit again changes nothing');
  t.is((await sqlError(submit(await submission()))).code, 'DRFTS', 'another submission of a submitted draft');
  t.is((await sqlError(save(d.public_id))).code, 'DRFTS', 'no save after submitting');
  t.is((await resumed(d.public_id))!.state, 'submitted');
  t.is(await heldBy(removedLate.id), null, 'a file the submission did not use goes back to the abandoned-upload retention');
  t.deepEqual((await resumed(d.public_id))!.files, []);
});

test('a draft holds the uploads its answers name (of its form and agent, unclaimed, not another draft’s) and releases the rest', async (t) => {
  const mine = await upload();
  const later = await upload();
  const foreignForm = await upload(ids.otherForm);
  const foreignAgent = await upload(ids.form, otherAgent);
  const d = await createDraft({ uploads: [mine.id, foreignForm.id, foreignAgent.id] });
  const draftId = (await tdb.db.owner.query('select id from app_public.form_drafts where public_id = $1', [d.public_id])).rows[0].id;
  t.is(await heldBy(mine.id), draftId);
  t.is(await heldBy(foreignForm.id), null, 'an upload of another form');
  t.is(await heldBy(foreignAgent.id), null, 'an upload made through another agent’s link');
  const other = await createDraft({ uploads: [mine.id] });
  t.deepEqual((await resumed(other.public_id))!.files, [], 'an upload another draft holds is not taken');
  await save(d.public_id, { uploads: [later.id] });
  t.is(await heldBy(mine.id), null, 'a file removed from the answers is released');
  t.is(await heldBy(later.id), draftId);
  t.deepEqual(
    (await resumed(d.public_id))!.files.map((f) => f.upload_id),
    [later.id],
  );
});

test.serial(
  'the purge deletes expired drafts with their unclaimed uploads and lists the files for the sweep; live drafts keep theirs past the upload retention',
  async (t) => {
    await tdb.db.owner.query(`delete from graphile_worker._private_jobs`);
    const gone = await upload();
    const shared = await upload();
    const claimed = await upload();
    const alive = await upload();
    const abandoned = await upload();
    // An older upload may share its file with another (0016): the file stays while any row names it.
    await tdb.db.owner.query('update app_public.submission_uploads set blob_key = $2 where public_id = $1', [shared.id, alive.blobKey]);
    const old = await createDraft({ uploads: [gone.id, shared.id, claimed.id] });
    await as(tdb, consumer, `select app_private.create_submission($1, $2, $3, '[]', null, '{}', '{}', $4::uuid[])`, [
      ids.form,
      ids.snapshot,
      a.ownerId,
      [claimed.id],
    ]);
    const live = await createDraft({ uploads: [alive.id] });
    await tdb.db.owner.query(
      `update app_public.form_drafts set expires_at = now() - interval '1 minute', created_at = now() - interval '8 days' where public_id = $1`,
      [old.public_id],
    );
    // Every upload is three days old: past HOSTED_UPLOAD_RETENTION_HOURS (48).
    await tdb.db.owner.query(`update app_public.submission_uploads set created_at = now() - interval '72 hours' where public_id = any($1::uuid[])`, [
      [gone.id, shared.id, claimed.id, alive.id, abandoned.id],
    ]);
    const abandonedPurged = (await tdb.db.owner.query('select app_private.purge_abandoned_uploads(48, 500) as n')).rows[0].n;
    t.is(abandonedPurged, 1, 'only the upload no draft holds is abandoned');
    const n = (await tdb.db.owner.query('select app_private.purge_expired_form_drafts(500) as n')).rows[0].n;
    t.true(n >= 1);
    t.is(await resumed(old.public_id), undefined, 'the expired draft is gone');
    t.is((await resumed(live.public_id))!.state, 'open', 'the live draft stays');
    const left = await tdb.db.owner.query('select public_id::text from app_public.submission_uploads where public_id = any($1::uuid[])', [
      [gone.id, shared.id, claimed.id, alive.id, abandoned.id],
    ]);
    t.deepEqual(left.rows.map((r) => r.public_id).sort(), [claimed.id, alive.id].sort(), 'the submitted upload and the live draft’s stay');
    const listed = (
      await tdb.db.owner.query('select blob_key from app_private.expired_blobs where blob_key = any($1)', [
        [gone.blobKey, alive.blobKey, abandoned.blobKey, claimed.blobKey],
      ])
    ).rows
      .map((r) => r.blob_key)
      .sort();
    t.deepEqual(listed, [gone.blobKey, abandoned.blobKey].sort(), 'files no row names any more are listed; a file another upload still names is not');
    const sweepable = (await tdb.db.owner.query('select app_private.blobs_to_sweep(100) as k')).rows.map((r) => r.k);
    t.false(sweepable.includes(alive.blobKey));
    t.is((await queuedJobs(tdb, 'blobs__sweep')).length, 1, 'the sweep is queued in the same transaction');
    t.is((await tdb.db.owner.query('select app_private.purge_expired_form_drafts(500) as n')).rows[0].n, 0, 'a second run finds nothing');
  },
);
