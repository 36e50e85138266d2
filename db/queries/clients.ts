// Every SQL statement of the v1 clients API (http/routes/v1/clients.ts) and the file sweep (tasks/blobs__sweep.ts),
// one exported function per statement with its row type beside it. Changes go through the state functions of
// db/migrations/0009_clients.sql; reads run under the request's RLS.
import type { Client as Queryable } from './types.ts';

export interface ClientAddress {
  line1?: string | null;
  line2?: string | null;
  city?: string | null;
  state?: string | null;
  postal_code?: string | null;
  country?: string | null;
}

export interface ClientRow {
  id: string;
  agency_id: number;
  agent_id: number;
  mode: 'test' | 'live';
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  phone: string | null;
  address: ClientAddress | string | null;
  sales_funnel_status: string;
  submissions_count: number;
  created_at: Date;
  updated_at: Date;
}

export interface SubmissionRow {
  id: string;
  client_id: string;
  created_at: Date;
}

export interface DeclarationPageRow {
  id: string;
  submission_id: string | null;
  filename: string | null;
  content_type: string | null;
  size_bytes: number | null;
  extraction_status: string | null;
  policy_type: string | null;
  carrier: string | null;
  policy_number: string | null;
  created_at: Date;
}

export interface AdditionalQuestionsRow {
  enabled: boolean;
  questions: unknown[];
  updated_at: Date;
}

const pageColumns = `c.id, c.agency_id, c.agent_id, c.mode, c.first_name, c.last_name, c.email, c.phone, c.address,
  c.sales_funnel_status, c.created_at, c.updated_at`;
const clientColumns = `c.id, c.agency_id, c.agent_id, c.mode, c.first_name, c.last_name, c.email, c.phone, c.address,
  c.sales_funnel_status, c.created_at, c.updated_at,
  (select count(*)::int from app_public.client_submissions s where s.client_id = c.id) as submissions_count`;

/** Raises NTFND / FORBD unless the caller may see and change the clients of `agentId`. */
export async function assertClientAgent(db: Queryable, agentId: number): Promise<void> {
  await db.query({ name: 'clients_assert_agent', text: 'select 1 from app_public.assert_client_agent($1)', values: [agentId] });
}

/** One client of an agent, with its submission count. */
export async function getClient(db: Queryable, agentId: number, clientId: string): Promise<ClientRow | undefined> {
  const { rows } = await db.query<ClientRow>({
    name: 'clients_get',
    text: `select ${clientColumns} from app_public.clients c where c.id = $2 and c.agent_id = $1`,
    values: [agentId, clientId],
  });
  return rows[0];
}

export interface ClientFilters {
  search: string | null;
  statuses: string[] | null;
  createdFrom: Date | null;
  createdTo: Date | null;
  hasSubmissions: boolean | null;
  sort: 'updated_at' | '-updated_at' | 'created_at' | '-created_at' | 'last_name' | '-last_name';
}

const orderBy: Record<ClientFilters['sort'], string> = {
  updated_at: 'c.updated_at asc, c.id asc',
  '-updated_at': 'c.updated_at desc, c.id desc',
  created_at: 'c.created_at asc, c.id asc',
  '-created_at': 'c.created_at desc, c.id desc',
  last_name: 'lower(c.last_name) asc nulls last, lower(c.first_name) asc nulls last, c.id asc',
  '-last_name': 'lower(c.last_name) desc nulls last, lower(c.first_name) desc nulls last, c.id desc',
};

/** A page of an agent's clients matching the filters, and how many match in all. */
export async function listClients(
  db: Queryable,
  agentId: number,
  f: ClientFilters,
  limit: number,
  offset: number,
): Promise<{ rows: ClientRow[]; total: number }> {
  const where = `c.agent_id = $1
    and ($2::text is null or strpos(lower(coalesce(c.first_name, '') || ' ' || coalesce(c.last_name, '')), lower($2)) > 0
         or strpos(lower(coalesce(c.email, '')), lower($2)) > 0)
    and ($3::text[] is null or c.sales_funnel_status = any ($3))
    and ($4::timestamptz is null or c.created_at >= $4)
    and ($5::timestamptz is null or c.created_at < $5)
    and ($6::boolean is null or $6 = exists (select 1 from app_public.client_submissions s where s.client_id = c.id))`;
  const values = [agentId, f.search, f.statuses, f.createdFrom, f.createdTo, f.hasSubmissions];
  // The page alone (a top-N through the agent's updated_at index), its rows' submission counts, and the total
  // counted apart: a window count over the page query would make every request read and sort all matches.
  const page = await db.query<ClientRow>(
    `select p.*, (select count(*)::int from app_public.client_submissions s where s.client_id = p.id) as submissions_count
       from (select ${pageColumns} from app_public.clients c where ${where} order by ${orderBy[f.sort]} limit $7 offset $8) p
      order by ${orderBy[f.sort].replaceAll('c.', 'p.')}`,
    [...values, limit, offset],
  );
  const total = await db.query<{ n: number }>(`select count(*)::int as n from app_public.clients c where ${where}`, values);
  return { rows: page.rows, total: total.rows[0].n };
}

/** A client's submissions, oldest first. */
export async function listSubmissions(db: Queryable, clientId: string): Promise<SubmissionRow[]> {
  const { rows } = await db.query<SubmissionRow>({
    name: 'clients_submissions',
    text: 'select s.id, s.client_id, s.created_at from app_public.client_submissions s where s.client_id = $1 order by s.created_at, s.id',
    values: [clientId],
  });
  return rows;
}

/** A client's declaration pages with their file and what the extraction found (policy type, carrier, number). */
export async function listDeclarationPages(db: Queryable, clientId: string): Promise<DeclarationPageRow[]> {
  const { rows } = await db.query<DeclarationPageRow>({
    name: 'clients_declaration_pages',
    text: `select p.id, p.submission_id, p.filename, d.content_type, d.size_bytes::int as size_bytes, x.status as extraction_status,
             nullif(x.result ->> 'policy_type', '') as policy_type,
             coalesce(x.result #>> '{policy,provider}', x.result #>> '{policy,carrier}', x.result ->> 'carrier') as carrier,
             coalesce(x.result #>> '{policy,policy_number}', x.result ->> 'policy_number') as policy_number,
             p.created_at
        from app_public.declaration_pages p
        left join app_public.documents d on d.id = p.document_id
        left join app_public.extractions x on x.id = p.extraction_id
       where p.client_id = $1
       order by p.created_at, p.id`,
    values: [clientId],
  });
  return rows;
}

/** The stored file of one declaration page of an agent's client, or undefined when the path does not match. */
export async function getDeclarationPageFile(
  db: Queryable,
  agentId: number,
  clientId: string,
  submissionId: string,
  pageId: string,
): Promise<{ blob_key: string | null; filename: string | null } | undefined> {
  const { rows } = await db.query<{ blob_key: string | null; filename: string | null }>({
    name: 'clients_declaration_page_file',
    text: `select d.blob_key, p.filename
        from app_public.declaration_pages p
        join app_public.clients c on c.id = p.client_id
        left join app_public.documents d on d.id = p.document_id
       where p.id = $4 and p.submission_id = $3 and p.client_id = $2 and c.agent_id = $1`,
    values: [agentId, clientId, submissionId, pageId],
  });
  return rows[0];
}

/** The created client (app_public.create_client), with its submission count. */
export async function createClient(
  db: Queryable,
  c: {
    agentId: number;
    firstName: string;
    lastName: string;
    email: string | null;
    phone: string | null;
    address: ClientAddress | null;
    salesFunnelStatus: string;
  },
): Promise<ClientRow> {
  const { rows } = await db.query<ClientRow>(`select ${clientColumns} from app_public.create_client($1, $2, $3, $4, $5, $6, $7) c`, [
    c.agentId,
    c.firstName,
    c.lastName,
    c.email,
    c.phone,
    c.address === null ? null : JSON.stringify(c.address),
    c.salesFunnelStatus,
  ]);
  return rows[0];
}

/** Apply the given fields (absent = unchanged, null = cleared) through app_public.update_client. */
export async function updateClient(db: Queryable, agentId: number, clientId: string, changes: Record<string, unknown>): Promise<void> {
  await db.query('select 1 from app_public.update_client($1, $2, $3)', [agentId, clientId, JSON.stringify(changes)]);
}

/** The reassigned client (app_public.reassign_client). */
export async function reassignClient(db: Queryable, agentId: number, clientId: string, targetAgentId: number): Promise<ClientRow> {
  const { rows } = await db.query<ClientRow>(`select ${clientColumns} from app_public.reassign_client($1, $2, $3) c`, [agentId, clientId, targetAgentId]);
  return rows[0];
}

/** Erase a client and everything about it (app_public.destroy_client). */
export async function destroyClient(db: Queryable, agentId: number, clientId: string): Promise<void> {
  await db.query('select app_public.destroy_client($1, $2)', [agentId, clientId]);
}

/** An agent's additional-questions setting, or undefined when never set. */
export async function getAdditionalQuestions(db: Queryable, agentId: number): Promise<AdditionalQuestionsRow | undefined> {
  const { rows } = await db.query<AdditionalQuestionsRow>(
    'select additional_questions_enabled as enabled, additional_questions as questions, updated_at from app_public.agent_client_settings where agent_id = $1',
    [agentId],
  );
  return rows[0];
}

/** Set an agent's additional-questions setting (questions null keeps the current list). */
export async function setAdditionalQuestions(db: Queryable, agentId: number, enabled: boolean, questions: unknown[] | null): Promise<AdditionalQuestionsRow> {
  const { rows } = await db.query<AdditionalQuestionsRow>(
    'select additional_questions_enabled as enabled, additional_questions as questions, updated_at from app_public.set_additional_questions($1, $2, $3)',
    [agentId, enabled, questions === null ? null : JSON.stringify(questions)],
  );
  return rows[0];
}

// ---- the file sweep (owner pool, bypassing RLS) ---------------------------------------------------------

/** Up to `limit` listed blob keys no document holds any more. */
export async function blobsToSweep(db: Queryable, limit: number): Promise<string[]> {
  const { rows } = await db.query<{ k: string }>('select k from app_private.blobs_to_sweep($1) k', [limit]);
  return rows.map((r) => r.k);
}

/** Drop a swept key from the list once its blob is deleted. */
export async function forgetSweptBlob(db: Queryable, blobKey: string): Promise<void> {
  await db.query('select app_private.forget_expired_blob($1)', [blobKey]);
}
