// Helpers of the policy extraction tests: uploads through the real API and waiting for the record.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { emptyExtractedData } from '../../pipelines/extraction/schema.ts';
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
