// The origins an agency lets frame its hosted forms (PUT/GET /v2/embed-origins).
import type { Client } from './types.ts';

/** The caller's agency's embed origins, sorted. */
export async function listEmbedOrigins(db: Client): Promise<string[]> {
  const { rows } = await db.query<{ origin: string }>('select origin from app_public.embed_origins order by origin');
  return rows.map((r) => r.origin);
}

/** Replace the list (admin key); returns the stored list, sorted. */
export async function setEmbedOrigins(db: Client, origins: string[]): Promise<string[]> {
  const { rows } = await db.query<{ origin: string }>('select o as origin from app_public.set_embed_origins($1::text[]) o', [origins]);
  return rows.map((r) => r.origin);
}
