// form_drafts__purge through the real worker: an expired draft goes with the uploads it held and their files; a live
// draft keeps its files past the abandoned-upload retention; the purge is crash-safe by its order (the rows go first,
// in one transaction that lists the files; a file is deleted only after, and a failed delete is retried), so no row
// ever names a missing file.
import test from 'ava';
import type { Runner } from 'graphile-worker';
import { cronItems } from '../../tasks/index.ts';
import { TINY_PDF, publishedForm } from '../helpers/hosted.ts';
import { startService, type TestService, agencyWithTestKey } from '../helpers/server.ts';
import { eventually, startTestWorker } from '../helpers/worker.ts';

let svc: TestService;
let worker: Runner;

test.before(async () => {
  svc = await startService({ RATE_LIMIT_UPLOADS_PER_WINDOW: '1000', RATE_LIMIT_DRAFT_SAVES_PER_WINDOW: '1000' });
  worker = await startTestWorker(svc);
});
test.after.always(async () => {
  await worker?.stop();
  await svc?.close();
});

const q = (sql: string, values: unknown[] = []) => svc.tdb.db.owner.query(sql, values);

async function setup() {
  const { key, ...a } = await agencyWithTestKey(svc);
  const form = await publishedForm(svc, key, a.agencyId);
  const base = `/${a.slug}/form/${form.public_id}`;
  const page = await svc.request('GET', `${base}/home-insurance-quote`);
  const snapshot_id = JSON.parse(/id="form-data">(.*?)<\/script>/s.exec(page.text)![1]).snapshot_id;
  const uploadOne = async (name: string) => {
    const fd = new FormData();
    fd.append('question_id', 'declarations');
    fd.append('file', new Blob([new Uint8Array(TINY_PDF)]), name);
    const up = await svc.request('POST', `${base}/uploads`, { form: fd });
    if (up.status !== 201) throw new Error(up.text);
    const row = await q('select blob_key from app_public.submission_uploads where public_id = $1', [up.body.upload_id]);
    return { id: up.body.upload_id as string, blobKey: row.rows[0].blob_key as string };
  };
  const draftWith = async (uploadIds: string[]) => {
    const r = await svc.request('POST', `${base}/drafts`, {
      json: {
        snapshot_id,
        client_key: crypto.randomUUID(),
        step: 2,
        history: [0],
        answers: { first_name: 'Kim', declarations: uploadIds.map((id) => ({ upload_id: id })) },
      },
    });
    if (r.status !== 201) throw new Error(r.text);
    return (r.body.resume_token as string).split('.')[0];
  };
  return { uploadOne, draftWith };
}

/** The draft's and its uploads' clocks moved back: expired `ago` after three days of uploads (past the 48 h retention). */
async function age(draftIds: string[], expired: boolean, uploadIds: string[]) {
  await q(`update app_public.submission_uploads set created_at = now() - interval '72 hours' where public_id = any($1::uuid[])`, [uploadIds]);
  if (expired)
    await q(
      `update app_public.form_drafts set created_at = now() - interval '8 days', expires_at = now() - interval '1 hour' where public_id = any($1::uuid[])`,
      [draftIds],
    );
}

const runTask = (task: string) => q(`select graphile_worker.add_job($1, '{}'::json)`, [task]);
const draftExists = async (id: string) => (await q('select 1 from app_public.form_drafts where public_id = $1', [id])).rowCount === 1;
const uploadExists = async (id: string) => (await q('select 1 from app_public.submission_uploads where public_id = $1', [id])).rowCount === 1;

/** No upload row names a file the store no longer has. */
async function noDanglingRows(): Promise<string[]> {
  const rows = await q('select public_id::text, blob_key from app_public.submission_uploads');
  const missing: string[] = [];
  for (const r of rows.rows) if ((await svc.deps.blobs.get(r.blob_key)) === undefined) missing.push(r.public_id);
  return missing;
}

/** Two uploads, each in a draft of its own: the first draft expired, and both uploads past the upload retention. */
async function expiredAndLive(expiredName: string, liveName: string) {
  const s = await setup();
  const expiredFile = await s.uploadOne(expiredName);
  const liveFile = await s.uploadOne(liveName);
  const expired = await s.draftWith([expiredFile.id]);
  const live = await s.draftWith([liveFile.id]);
  await age([expired], true, [expiredFile.id, liveFile.id]);
  return { expiredFile, liveFile, expired, live };
}

test('form_drafts__purge runs hourly from the cron list', (t) => {
  t.truthy(cronItems.find((c) => c.task === 'form_drafts__purge'));
});

test.serial('an expired draft goes with its files; a live draft keeps its own past the upload retention', async (t) => {
  const { expiredFile, liveFile, expired, live } = await expiredAndLive('expired.pdf', 'live.pdf');

  // The hourly upload purge leaves both to their drafts.
  await runTask('maintenance__purge');
  await eventually(
    async () => (await q(`select 1 from graphile_worker.jobs where task_identifier = 'maintenance__purge'`)).rowCount === 0,
    20_000,
    'maintenance__purge',
  );
  t.true(await uploadExists(liveFile.id), 'a live draft holds its upload past HOSTED_UPLOAD_RETENTION_HOURS');
  t.true(await uploadExists(expiredFile.id), 'an expired draft’s upload waits for the draft purge');

  await runTask('form_drafts__purge');
  await eventually(async () => (await svc.deps.blobs.get(expiredFile.blobKey)) === undefined, 20_000, 'the expired draft’s file to be deleted');
  t.false(await draftExists(expired));
  t.false(await uploadExists(expiredFile.id));
  t.true(await draftExists(live));
  t.true(await uploadExists(liveFile.id));
  t.truthy(await svc.deps.blobs.get(liveFile.blobKey), 'the live draft’s file is kept');
  await eventually(
    async () => (await q('select 1 from app_private.expired_blobs where blob_key = $1', [expiredFile.blobKey])).rowCount === 0,
    20_000,
    'the swept key to be forgotten',
  );
  t.deepEqual(await noDanglingRows(), []);
});

test.serial('a crash between the rows and the files leaves only files no row names, which the retried sweep deletes', async (t) => {
  const { expiredFile: file, liveFile: kept, expired: draft, live: other } = await expiredAndLive('crash.pdf', 'kept.pdf');
  // The blob store fails the first deletes (a store outage, or the process dying mid-sweep).
  const blobs = svc.deps.blobs;
  const realDelete = blobs.delete.bind(blobs);
  let failures = 0;
  blobs.delete = async (key: string) => {
    if (key === file.blobKey && failures < 1) {
      failures++;
      throw new Error('blob store unavailable');
    }
    return realDelete(key);
  };
  try {
    await runTask('form_drafts__purge');
    await eventually(async () => failures === 1, 20_000, 'the failed delete');
    // The rows went first and the file is listed: nothing names it, and it is still there to be deleted.
    t.false(await draftExists(draft));
    t.false(await uploadExists(file.id));
    t.truthy(await svc.deps.blobs.get(file.blobKey));
    t.is((await q('select count(*)::int n from app_private.expired_blobs where blob_key = $1', [file.blobKey])).rows[0].n, 1);
    t.deepEqual(await noDanglingRows(), [], 'no row names a missing file, even mid-failure');
    // graphile-worker retries the sweep with its backoff.
    await eventually(async () => (await svc.deps.blobs.get(file.blobKey)) === undefined, 30_000, 'the retried sweep');
    await eventually(
      async () => (await q('select 1 from app_private.expired_blobs where blob_key = $1', [file.blobKey])).rowCount === 0,
      20_000,
      'the key forgotten',
    );
  } finally {
    blobs.delete = realDelete;
  }
  t.true(await draftExists(other));
  t.truthy(await svc.deps.blobs.get(kept.blobKey));
  t.deepEqual(await noDanglingRows(), []);
});
