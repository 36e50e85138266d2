// Helpers of the policy extraction tests: uploads through the real API and waiting for the record.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ExecutionContext } from 'ava';
import { withIdentity, type Identity } from '../../db/pool.ts';
import { extractDocument } from '../../pipelines/extraction/index.ts';
import { scoreDocument } from '../../pipelines/extraction/evaluate.ts';
import { emptyExtractedData } from '../../pipelines/extraction/schema.ts';
import type { FreeCertificateSpec } from '../../fixtures/free_certificate.ts';
import { randomFreeCertificateSpec } from '../../fixtures/free_certificate_random.ts';
import type { TestService, Reply } from './server.ts';
import { eventually } from './worker.ts';

export const policiesDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/policies');
export const policyFixture = (name: string) => fs.readFileSync(path.join(policiesDir, name));

const types: Record<string, string> = { pdf: 'application/pdf', jpg: 'image/jpeg', png: 'image/png' };

/** POST /api/v1/{agent}/policy/extract with `file` (and any other fields) as multipart. */
export function upload(
  svc: Pick<TestService, 'request'>,
  key: string,
  agentId: number,
  bytes: Buffer | Uint8Array,
  filename: string,
  fields: Record<string, string> = {},
  headers: Record<string, string> = {},
): Promise<Reply> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)], { type: types[filename.split('.').pop()!] ?? 'application/octet-stream' }), filename);
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  return svc.request('POST', `/api/v1/${agentId}/policy/extract`, { form, headers: { 'x-api-key': key, ...headers } });
}

/** A completed test-mode extraction of coi_alpha.pdf (the engine's real result), its file in the blob store. */
export async function extractedCoi(svc: Pick<TestService, 'tdb' | 'deps'>, agency: { agencyId: number; ownerId: number }): Promise<string> {
  const bytes = policyFixture('coi_alpha.pdf');
  const r = await extractDocument(new Uint8Array(bytes), { filename: 'coi_alpha.pdf' });
  const key = `documents/${randomUUID()}.pdf`;
  await svc.deps.blobs.putAt(key, bytes, 'application/pdf');
  const o = svc.tdb.db.owner;
  const doc = await o.query<{ id: string }>(
    `insert into app_public.documents (agency_id, agent_id, mode, blob_key, filename, content_type, size_bytes, sha256, page_count)
     values ($1, $2, 'test', $3, 'coi_alpha.pdf', 'application/pdf', $4, repeat('c', 64), 1) returning id`,
    [agency.agencyId, agency.ownerId, key, bytes.length],
  );
  const x = await o.query<{ id: string }>(
    `insert into app_public.extractions (document_id, agency_id, agent_id, mode, entity_type, status, parsing_method, result)
     values ($1, $2, $3, 'test', 'declaration_page', 'completed', 'text', $4) returning id`,
    [doc.rows[0].id, agency.agencyId, agency.ownerId, JSON.stringify(r.extracted_data)],
  );
  return x.rows[0].id;
}

/**
 * Two agencies of one OAuth client: "Sharing Agency", which shares its reviewed documents, and "Private Agency",
 * which does not; their owners (test mode), and `review` to review a field as one of them.
 */
export async function sharingAndPrivate(svc: Pick<TestService, 'tdb' | 'oauthClient' | 'agency'>) {
  const oauth = await svc.oauthClient();
  const a = await svc.agency(oauth.token, 'Sharing Agency');
  const b = await svc.agency(oauth.token, 'Private Agency');
  const ownerA: Identity = { role: 'owner', agencyId: a.agencyId, agentId: a.ownerId, mode: 'test' };
  const ownerB: Identity = { role: 'owner', agencyId: b.agencyId, agentId: b.ownerId, mode: 'test' };
  const as = (who: Identity, sql: string, values: unknown[]) => withIdentity(svc.tdb.db, who, (c) => c.query(sql, values));
  await as(ownerA, 'select app_public.set_share_reviewed_documents(true)', []);
  const review = (who: Identity, id: string, pointer: string, action: string, value: unknown = null) =>
    as(who, 'select app_public.review_field($1, $2, $3, $4)', [id, pointer, action, JSON.stringify(value)]);
  return { a, b, ownerA, ownerB, review };
}

/** GET the record until it is finished (completed, partial or failed). */
export async function finished(svc: Pick<TestService, 'request'>, key: string, agentId: number, extractionId: string, ms = 120_000) {
  return eventually(
    async () => {
      const r = await svc.request('GET', `/api/v1/${agentId}/policy/extractions/${extractionId}`, { headers: { 'x-api-key': key } });
      return ['completed', 'partial', 'failed'].includes(r.body?.parsing_status) && r.body;
    },
    ms,
    `extraction ${extractionId} to finish`,
  );
}

/** A certificate's result held for review: its policy number read by OCR with low confidence, the one field to review. */
export const HELD_CERTIFICATE = {
  ...emptyExtractedData('certificate'),
  policy_type: 'Certificate of Liability Insurance',
  policy: {
    provider: 'Commonwealth Casualty Company',
    policy_number: 'GL-88120O45',
    effective_date: '2025-03-01',
    expiration_date: '2026-03-01',
    premium: null,
  },
  policyholder: { first_name: null, last_name: null, organization: 'Beacon Hill Renovations Inc', address: '22 Charles St' },
  citations: { '/policy/policy_number': { page: 1, text: 'GL-88120O45', confidence: 0.55, source: 'ocr' } },
  needs_review: ['/policy/policy_number'],
};

/**
 * `file` (a policy fixture) uploaded with a new test key of agency `a` (its answer asserted 200) and read by the
 * worker: the key and the finished record. With `planBy`, that OAuth token first puts the agency on the enterprise
 * plan, room for the polling.
 */
export async function uploadFinished(
  t: ExecutionContext,
  svc: Pick<TestService, 'request' | 'apiKey'>,
  a: { agencyId: number; ownerId: number; ownerToken: string },
  file: string,
  planBy?: string,
) {
  const key = await svc.apiKey(a.ownerToken, a.agencyId, 'test');
  if (planBy)
    await svc.request('PUT', `/v1/agencies/${a.agencyId}/plan`, { token: planBy, json: { plan: 'enterprise', per_minute: 10_000, per_day: 100_000 } });
  const up = await upload(svc, key, a.ownerId, policyFixture(file), file);
  t.is(up.status, 200, up.text);
  return { key, rec: await finished(svc, key, a.ownerId, up.body.extraction_id) };
}

/**
 * A generated document (`pdf` with its `expected` fields) read from its text layer, as a declaration page: the
 * extracted data and the expected fields it missed (scored as `svc eval` scores them).
 */
export async function readTextLayer(doc: { pdf: Uint8Array; expected: Record<string, unknown> }) {
  const r = await extractDocument(doc.pdf, { entityType: 'declaration_page', read: { ocr: false } });
  return { data: r.extracted_data, misses: scoreDocument(doc.expected, r.extracted_data as never).misses };
}

/** The first seed from `from` on whose text-layer free certificate `ok` holds, with its spec. */
export function firstFreeCertificate(from: number, ok: (s: FreeCertificateSpec) => boolean): { seed: number; spec: FreeCertificateSpec } {
  let seed = from;
  while (!ok(randomFreeCertificateSpec(seed, { scan: false }))) seed++;
  return { seed, spec: randomFreeCertificateSpec(seed, { scan: false }) };
}
