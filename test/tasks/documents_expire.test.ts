// Retention: documents past their agency's retention period lose their file, page text and extracted data;
// the record says its file expired, its link stops working, and a crash between the two steps loses nothing.
import test from 'ava';
import { finished, policyFixture, upload } from '../helpers/extraction.ts';
import { serviceRig } from '../helpers/rig.ts';
import { agencyWithTestKey } from '../helpers/server.ts';
import { documentsExpire } from '../../tasks/documents__expire.ts';
import { expireDocuments } from '../../db/queries/extractions.ts';

const rig = serviceRig({ DOCUMENT_RETENTION_DAYS: '30' });

/** Run the retention task once, as the cron would. */
async function runRetention() {
  const task = documentsExpire({ cfg: rig.svc.cfg, log: rig.svc.deps.log, secretKey: rig.svc.deps.secretKey, blobs: rig.svc.deps.blobs });
  const client = await rig.svc.tdb.db.owner.connect();
  try {
    await task({}, { withPgClient: (fn: (c: unknown) => unknown) => fn(client), logger: { info() {}, debug() {} } } as never);
  } finally {
    client.release();
  }
}

const age = (documentId: string, days: number) =>
  rig.svc.tdb.db.owner.query(`update app_public.documents set created_at = now() - make_interval(days => $2) where id = $1`, [documentId, days]);

test.serial('a document past retention loses its file and data; a younger one and another agency’s shorter period are honoured', async (t) => {
  const { oauth: c, key, ...a } = await agencyWithTestKey(rig.svc);
  await rig.svc.request('PUT', `/v1/agencies/${a.agencyId}/plan`, { token: c.token, json: { plan: 'enterprise', per_minute: 1000, per_day: 10000 } });
  const bytes = policyFixture('auto_acme_mutual.pdf');
  const old = (await upload(rig.svc, key, a.ownerId, bytes, 'old.pdf')).body;
  const young = (await upload(rig.svc, key, a.ownerId, bytes, 'young.pdf')).body;
  await finished(rig.svc, key, a.ownerId, old.extraction_id);
  await finished(rig.svc, key, a.ownerId, young.extraction_id);
  const keys = (await rig.svc.tdb.db.owner.query(`select id, blob_key from app_public.documents where agency_id = $1`, [a.agencyId])).rows;
  const oldKey = keys.find((k) => k.id === old.document_id).blob_key;
  await age(old.document_id, 31);
  await age(young.document_id, 29);
  await runRetention();
  const rec = (await rig.svc.request('GET', `/api/v1/${a.ownerId}/policy/extractions/${old.extraction_id}`, { headers: { 'x-api-key': key } })).body;
  t.true(rec.file_expired);
  t.is(rec.extracted_data, null);
  t.is(await rig.svc.deps.blobs.get(oldKey), undefined, 'the file is deleted');
  const kept = (await rig.svc.request('GET', `/api/v1/${a.ownerId}/policy/extractions/${young.extraction_id}`, { headers: { 'x-api-key': key } })).body;
  t.falsy(kept.file_expired);
  t.truthy(kept.extracted_data);
  const pages = await rig.svc.tdb.db.owner.query(`select count(*)::int n from app_private.document_pages where document_id = $1`, [old.document_id]);
  t.is(pages.rows[0].n, 0);
  const copies = await rig.svc.tdb.db.owner.query(`select count(*)::int n from app_public.events where agency_id = $1 and strpos(data::text, $2) > 0`, [
    a.agencyId,
    oldKey,
  ]);
  t.is(copies.rows[0].n, 0, 'no event keeps the expired document’s data');
  const youngKey = keys.find((k) => k.id === young.document_id).blob_key;
  const youngCopies = await rig.svc.tdb.db.owner.query(`select count(*)::int n from app_public.events where agency_id = $1 and strpos(data::text, $2) > 0`, [
    a.agencyId,
    youngKey,
  ]);
  t.is(youngCopies.rows[0].n, 3, 'the younger document’s three events are kept');
  // An agency with a 7-day period.
  await rig.svc.tdb.db.owner.query(`update app_public.agencies set document_retention_days = 7 where id = $1`, [a.agencyId]);
  await age(young.document_id, 8);
  await runRetention();
  const now = (await rig.svc.request('GET', `/api/v1/${a.ownerId}/policy/extractions/${young.extraction_id}`, { headers: { 'x-api-key': key } })).body;
  t.true(now.file_expired);
});

test.serial('a crash after marking, before deleting, is finished by the next run', async (t) => {
  const { key, ...a } = await agencyWithTestKey(rig.svc);
  const r = (await upload(rig.svc, key, a.ownerId, policyFixture('auto_acme_mutual.pdf'), 'p.pdf')).body;
  const blobKey = (await rig.svc.tdb.db.owner.query(`select blob_key from app_public.documents where id = $1`, [r.document_id])).rows[0].blob_key;
  await age(r.document_id, 40);
  // Step 1 only, as if the process died right after it.
  await expireDocuments(rig.svc.tdb.db.owner, 30, 500);
  t.truthy(await rig.svc.deps.blobs.get(blobKey), 'the blob is still there');
  const listed = await rig.svc.tdb.db.owner.query(`select count(*)::int n from app_private.expired_blobs where blob_key = $1`, [blobKey]);
  t.is(listed.rows[0].n, 1, 'but it is listed for deletion');
  await runRetention();
  t.is(await rig.svc.deps.blobs.get(blobKey), undefined);
  const left = await rig.svc.tdb.db.owner.query(`select count(*)::int n from app_private.expired_blobs`);
  t.is(left.rows[0].n, 0);
});
