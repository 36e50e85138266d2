// Webhook endpoints: v2 topic endpoints (one per agency and topic) and v1 subscriptions share one table. The
// request role may write but never read the ciphertext columns, so every statement names its columns.
import type { Queryable } from './types.ts';

export interface EndpointRow {
  id: string;
  agency_id: number;
  kind: 'topic' | 'subscription';
  topic: 'client-submission' | 'form-submission' | null;
  staging_url: string | null;
  production_url: string | null;
  url: string | null;
  events: string[];
  description: string | null;
  auth_kind: 'bearer' | 'basic' | 'header' | null;
  enabled: boolean;
  disabled_reason: string | null;
  disabled_at: Date | null;
  failing_since: Date | null;
  created_at: Date;
  updated_at: Date;
}

const columnNames = [
  'id',
  'agency_id',
  'kind',
  'topic',
  'staging_url',
  'production_url',
  'url',
  'events',
  'description',
  'auth_kind',
  'enabled',
  'disabled_reason',
  'disabled_at',
  'failing_since',
  'created_at',
  'updated_at',
];
const endpointColumns = columnNames.join(', ');
/** The same columns out of a composite `r.endpoint` returned by a state function. */
const endpointOf = (composite: string) => columnNames.map((c) => `(${composite}).${c}`).join(', ');

/** Encrypted alternative credentials of an endpoint (both null: none). */
export interface SealedAuth {
  kind: string | null;
  ciphertext: string | null;
}

// Topic endpoints (v2) ------------------------------------------------------------------------------------------

/** The caller's endpoint of a topic, if any. */
export async function getTopicEndpoint(db: Queryable, topic: string): Promise<EndpointRow | undefined> {
  const { rows } = await db.query<EndpointRow>(`select ${endpointColumns} from app_public.webhook_endpoints where kind = 'topic' and topic = $1`, [topic]);
  return rows[0];
}

/** The caller's topic endpoints, by topic. */
export async function listTopicEndpoints(db: Queryable): Promise<EndpointRow[]> {
  const { rows } = await db.query<EndpointRow>(`select ${endpointColumns} from app_public.webhook_endpoints where kind = 'topic' order by topic`);
  return rows;
}

/**
 * Create or update the endpoint of a topic (app_public.put_topic_endpoint). Fields left undefined keep their
 * value; null clears. `secretCiphertext` is stored only when the endpoint is created.
 */
export async function putTopicEndpoint(
  db: Queryable,
  topic: string,
  p: { stagingUrl?: string | null; productionUrl?: string | null; auth?: SealedAuth; enabled?: boolean; secretCiphertext: string },
): Promise<{ endpoint: EndpointRow; created: boolean }> {
  const given = [p.stagingUrl !== undefined && 'staging_url', p.productionUrl !== undefined && 'production_url', p.auth !== undefined && 'auth'].filter(
    Boolean,
  );
  const { rows } = await db.query<EndpointRow & { created: boolean }>(
    `select ${endpointOf('r.endpoint')}, r.created from app_public.put_topic_endpoint($1, $2, $3, $4, $5, $6, $7, $8) r`,
    [topic, p.stagingUrl ?? null, p.productionUrl ?? null, p.auth?.kind ?? null, p.auth?.ciphertext ?? null, given, p.secretCiphertext, p.enabled ?? null],
  );
  const { created, ...endpoint } = rows[0];
  return { endpoint, created };
}

// Subscriptions (v1) --------------------------------------------------------------------------------------------

/** A subscription of the caller's agency, if visible. */
export async function getSubscription(db: Queryable, id: string): Promise<EndpointRow | undefined> {
  const { rows } = await db.query<EndpointRow>(`select ${endpointColumns} from app_public.webhook_endpoints where kind = 'subscription' and id = $1`, [id]);
  return rows[0];
}

/** The subscriptions of the caller's agency, oldest first. */
export async function listSubscriptions(db: Queryable): Promise<EndpointRow[]> {
  const { rows } = await db.query<EndpointRow>(
    `select ${endpointColumns} from app_public.webhook_endpoints where kind = 'subscription' order by created_at, id`,
  );
  return rows;
}

/** Subscribe a URL to events (app_public.create_webhook_subscription), created by the calling agent. */
export async function createSubscription(
  db: Queryable,
  s: { url: string; events: string[]; description: string | null; secretCiphertext: string; auth: SealedAuth; enabled: boolean },
): Promise<EndpointRow> {
  const { rows } = await db.query<EndpointRow>(`select ${endpointColumns} from app_public.create_webhook_subscription($1, $2, $3, $4, $5, $6, $7)`, [
    s.url,
    s.events,
    s.description,
    s.secretCiphertext,
    s.auth.kind,
    s.auth.ciphertext,
    s.enabled,
  ]);
  return rows[0];
}

/** Change url, events, description or credentials of a subscription (undefined = unchanged). */
export async function updateSubscription(
  db: Queryable,
  id: string,
  c: { url?: string; events?: string[]; description?: string | null; auth?: SealedAuth },
): Promise<void> {
  // The SET names only the columns that change: the request role may write but not read the ciphertexts.
  const changes: Array<[string, unknown]> = [];
  if (c.url !== undefined) changes.push(['url', c.url]);
  if (c.events !== undefined) changes.push(['events', c.events]);
  if (c.description !== undefined) changes.push(['description', c.description]);
  if (c.auth !== undefined) changes.push(['auth_kind', c.auth.kind], ['auth_ciphertext', c.auth.ciphertext]);
  if (!changes.length) return;
  const sets = changes.map(([col], i) => `${col} = $${i + 2}`).join(', ');
  await db.query(`update app_public.webhook_endpoints set ${sets} where id = $1`, [id, ...changes.map(([, v]) => v)]);
}

/** Remove a subscription with its delivery log; false when it was not visible. */
export async function deleteSubscription(db: Queryable, id: string): Promise<boolean> {
  const { rowCount } = await db.query(`delete from app_public.webhook_endpoints where kind = 'subscription' and id = $1`, [id]);
  return !!rowCount;
}

// Both kinds ----------------------------------------------------------------------------------------------------

/** Enable or disable an endpoint; enabling resumes its pending deliveries. */
export async function setEndpointEnabled(db: Queryable, id: string, enabled: boolean): Promise<EndpointRow> {
  const { rows } = await db.query<EndpointRow>(`select ${endpointColumns} from app_public.set_webhook_endpoint_enabled($1, $2)`, [id, enabled]);
  return rows[0];
}

/** Store a new signing secret; false when the endpoint was not visible. */
export async function replaceEndpointSecret(db: Queryable, id: string, secretCiphertext: string): Promise<boolean> {
  const { rowCount } = await db.query('update app_public.webhook_endpoints set secret_ciphertext = $2 where id = $1', [id, secretCiphertext]);
  return !!rowCount;
}
