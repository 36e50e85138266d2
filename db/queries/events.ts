// The events outbox as the events__fan_out task reads it: one event with its targets, and the deliveries made
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

/** Create and queue one delivery per target (existing ones are kept); returns how many were created. */
export async function createDeliveries(db: Queryable, eventId: number, deliveries: Array<{ endpoint_id: string; url: string; body: string }>): Promise<number> {
  const { rows } = await db.query<{ n: number }>('select app_private.create_deliveries($1, $2) as n', [eventId, JSON.stringify(deliveries)]);
  return rows[0].n;
}

export interface FanOutPlanRow extends EventRow {
  /** Null on the one line of an event without targets. */
  endpoint_id: string | null;
  url: string | null;
  kind: 'topic' | 'subscription' | null;
}

/** The event with one line per target, in one round trip (no line at all when the event is gone). */
export async function fanOutPlan(db: Queryable, eventId: number): Promise<FanOutPlanRow[]> {
  const { rows } = await db.query<FanOutPlanRow>('select * from app_private.fan_out_plan($1)', [eventId]);
  return rows;
}
