// The events outbox as the events__fan_out task reads it: one event, its targets, and the deliveries made
// from it (app_private.create_deliveries adds nothing when run twice).
import type { Queryable } from './types.ts';

export interface EventRow {
  id: number;
  uuid: string;
  mode: 'test' | 'live';
  topic: 'client-submission' | 'form-submission' | null;
  event_name: string | null;
  data: Record<string, unknown>;
  created_at: Date;
}

export interface EventTargetRow {
  endpoint_id: string;
  url: string;
  kind: 'topic' | 'subscription';
}

/** An event of the outbox, if it still exists. */
export async function getEvent(db: Queryable, eventId: number): Promise<EventRow | undefined> {
  const { rows } = await db.query<EventRow>('select id, uuid, mode, topic, event_name, data, created_at from app_public.events where id = $1', [eventId]);
  return rows[0];
}

/** The endpoints an event goes to, with the URL of its mode. */
export async function eventTargets(db: Queryable, eventId: number): Promise<EventTargetRow[]> {
  const { rows } = await db.query<EventTargetRow>('select * from app_private.event_targets($1)', [eventId]);
  return rows;
}

/** Create and queue one delivery per target (existing ones are kept); returns how many were created. */
export async function createDeliveries(db: Queryable, eventId: number, deliveries: Array<{ endpoint_id: string; url: string; body: string }>): Promise<number> {
  const { rows } = await db.query<{ n: number }>('select app_private.create_deliveries($1, $2) as n', [eventId, JSON.stringify(deliveries)]);
  return rows[0].n;
}
