// A held extraction (hold for review, 0026) waits in the queue for as long as nobody reviews it, longer than a
// signed file link lives: its client-submission webhook, sent when the last field is reviewed, carries a
// document_link signed at release (0028, the dashboard's review route), which opens the document.
import { randomUUID } from 'node:crypto';
import test from 'ava';
import { withIdentity } from '../../db/pool.ts';
import { fileLinkKey, signFileLink } from '../../lib/links.ts';
import { HELD_CERTIFICATE, policyFixture } from '../helpers/extraction.ts';
import { signInCookie } from '../helpers/dashboard.ts';
import { fileService } from '../helpers/server.ts';

const svc = fileService();

const RESULT = HELD_CERTIFICATE;

test('a held extraction reviewed after its first link expired is delivered with a link that opens the document', async (t) => {
  const oauth = await svc.oauthClient();
  const a = await svc.agency(oauth.token, 'Held Links Agency');
  const owner = { role: 'owner' as const, agencyId: a.agencyId, agentId: a.ownerId, mode: 'test' as const };
  await withIdentity(svc.tdb.db, owner, (c) => c.query('select app_public.set_hold_for_review(true)'));
  const bytes = policyFixture('coi_alpha.pdf');
  const blobKey = `documents/${randomUUID()}.pdf`;
  await svc.deps.blobs.putAt(blobKey, bytes, 'application/pdf');
  const o = svc.tdb.db.owner;
  const { rows } = await o.query<{ id: string }>(
    `with d as (insert into app_public.documents (agency_id, agent_id, mode, blob_key, filename, content_type, size_bytes, sha256, page_count)
                values ($1, $2, 'test', $3, 'coi_alpha.pdf', 'application/pdf', $4, repeat('c', 64), 1) returning id)
     insert into app_public.extractions (document_id, agency_id, agent_id, mode, entity_type, status, outcome, parsing_method, result)
     select d.id, $1, $2, 'test', 'declaration_page', 'processing', 'completed', 'ocr', $5::jsonb from d returning id`,
    [a.agencyId, a.ownerId, blobKey, bytes.length, JSON.stringify(RESULT)],
  );
  const id = rows[0].id;
  // Completed (and parked) two hours ago with a link of the default lifetime, one hour.
  const ttl = svc.cfg.FILE_LINK_TTL_SECONDS;
  const first = signFileLink({
    baseUrl: svc.cfg.filesUrl,
    key: fileLinkKey(svc.deps.secretKey),
    blobKey,
    filename: 'coi_alpha.pdf',
    ttlSeconds: ttl,
    now: Date.now() - 2 * ttl * 1000,
  });
  const { citations: _c, ...policy } = RESULT;
  const parked = await o.query<{ status: string }>('select status from app_private.complete_extraction($1, $2)', [
    id,
    JSON.stringify({ ...policy, document_link: first.url }),
  ]);
  t.is(parked.rows[0].status, 'needs_review');
  const stale = await fetch(first.url);
  t.is(stale.status, 403, 'the link signed at completion has expired');

  // The reviewer signs in to the dashboard and confirms the one uncertain field.
  const cookie = await signInCookie(t, svc, oauth.token, a.ownerId);
  const page = await fetch(`${svc.url}/dashboard/test/review/${id}`, { headers: { cookie } });
  t.is(page.status, 200);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1];
  t.truthy(csrf);
  const posted = await fetch(`${svc.url}/dashboard/test/review/${id}`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrf!, pointer: '/policy/policy_number', value: 'GL-88120045', action: 'save' }),
    redirect: 'manual',
  });
  t.is(posted.status, 302, await posted.text());

  const events = await o.query<{ topic: string | null; event_name: string | null; data: any }>(
    'select topic, event_name, data from app_public.events where agency_id = $1 order by id',
    [a.agencyId],
  );
  const submission = events.rows.find((e) => e.topic === 'client-submission')!.data;
  const upload = events.rows.find((e) => e.event_name === 'client-submission.declaration-page-upload')!.data;
  t.is(submission.policy.policy_number, 'GL-88120045');
  t.not(submission.document_link, first.url);
  t.is(upload.declaration_page.document_link, submission.document_link);
  const expires = Number(new URL(submission.document_link).searchParams.get('expires'));
  t.true(expires * 1000 > Date.now() + (ttl - 60) * 1000, 'signed at release, for a whole lifetime');
  const opened = await fetch(submission.document_link);
  t.is(opened.status, 200);
  t.deepEqual(Buffer.from(await opened.arrayBuffer()), bytes);
});
