// Agencies with agents, and clients with submissions and declaration pages made the way the product makes them:
// an upload through the extraction chain's state functions (0006), completed in one transaction.
import { createHash, randomUUID } from 'node:crypto';
import { fileLinkKey, signFileLink } from '../../lib/links.ts';
import type { TestService } from './server.ts';

let seq = 0;

export interface Agency {
  oauth: string;
  agencyId: number;
  ownerId: number;
  ownerToken: string;
  /** Plain agents (not admins). */
  agents: Array<{ id: number; token: string; email: string }>;
}

/** An agency with its owner (an admin) and `plain` plain agents. */
export async function agencyWithAgents(svc: TestService, plain = 2): Promise<Agency> {
  const c = await svc.oauthClient();
  const a = await svc.agency(c.token);
  const agents = [];
  for (let i = 0; i < plain; i++) {
    const email = `agent${++seq}-${randomUUID().slice(0, 8)}@example.com`;
    const r = await svc.request('POST', `/v1/agencies/${a.agencyId}/agents`, { token: c.token, json: { first_name: 'Pat', last_name: `Plain${seq}`, email } });
    if (r.status !== 200) throw new Error(`agent creation failed: ${r.text}`);
    agents.push({ id: r.body.data.id as number, token: r.body.data.access_token as string, email });
  }
  return { oauth: c.token, agencyId: a.agencyId, ownerId: a.ownerId, ownerToken: a.ownerToken, agents };
}

export interface Extracted {
  clientId: string;
  submissionId: string;
  pageId: string;
  extractionId: string;
  documentId: string;
  blobKey: string;
  bytes: Buffer;
}

/**
 * Upload a document for an agent (as an API key of `mode`), run it through begin → result → complete, and return
 * the client, submission and declaration page the completion made (attached to `clientId` when given).
 */
export async function extractFor(
  svc: TestService,
  agencyId: number,
  agentId: number,
  opts: { clientId?: string; mode?: 'test' | 'live'; first?: string; last?: string; carrier?: string; policyNumber?: string; address?: unknown } = {},
): Promise<Extracted> {
  const bytes = Buffer.from(`%PDF-1.4\n% declarations ${randomUUID()}\n%%EOF\n`);
  const blobKey = await svc.deps.blobs.put('documents', bytes, 'pdf');
  const documentId = randomUUID();
  const mode = opts.mode ?? 'live';
  const first = opts.first ?? 'Jordan';
  const last = opts.last ?? `Alvarez${++seq}`;
  const result = {
    policy_type: 'Personal Auto',
    policy: {
      provider: opts.carrier ?? 'Lone Star Mutual',
      policy_number: opts.policyNumber ?? `PA-${seq}`,
      effective_date: null,
      expiration_date: null,
      premium: null,
    },
    policyholder: { first_name: first, last_name: last, ...(opts.address ? { address: opts.address } : {}) },
  };
  const link = signFileLink({ baseUrl: svc.cfg.filesUrl, key: fileLinkKey(svc.deps.secretKey), blobKey, filename: 'declarations.pdf', ttlSeconds: 3600 });
  const owner = svc.tdb.db.owner;
  // One transaction drives the stages by hand (this file is not a real PDF): the jobs each stage queues are
  // removed before commit, so a running worker never reads the fake document.
  const c = await owner.connect();
  let extractionId: string;
  try {
    await c.query('begin');
    await c.query(`select set_config('svc.role', 'admin', true), set_config('svc.agency_id', $1, true), set_config('svc.mode', $2, true)`, [
      String(agencyId),
      mode,
    ]);
    const x = await c.query<{ id: string }>('select id from app_private.start_extraction($1, $2, $3, $4, $5, $6, $7, $8, $9)', [
      agentId,
      documentId,
      blobKey,
      'declarations.pdf',
      'application/pdf',
      bytes.length,
      createHash('sha256').update(bytes).digest('hex'),
      'declaration_page',
      opts.clientId ?? null,
    ]);
    extractionId = x.rows[0].id;
    await c.query('select app_private.begin_extraction($1)', [extractionId]);
    await c.query('select app_private.record_extraction_result($1, $2, $3, $4, $5)', [extractionId, 'completed', 'text', JSON.stringify(result), '[]']);
    await c.query(`select graphile_worker.remove_job(k) from unnest(array['extraction:read:' || $1, 'extraction:complete:' || $1]) k`, [extractionId]);
    await c.query('select app_private.complete_extraction($1, $2)', [extractionId, JSON.stringify({ ...result, document_link: link.url })]);
    await c.query('commit');
  } catch (err) {
    await c.query('rollback');
    throw err;
  } finally {
    c.release();
  }
  const { rows } = await owner.query<{ client_id: string; submission_id: string; declaration_page_id: string; status: string }>(
    'select client_id, submission_id, declaration_page_id, status from app_public.extractions where id = $1',
    [extractionId],
  );
  if (rows[0].status !== 'completed') throw new Error(`extraction ended ${rows[0].status}`);
  return { clientId: rows[0].client_id, submissionId: rows[0].submission_id, pageId: rows[0].declaration_page_id, extractionId, documentId, blobKey, bytes };
}
