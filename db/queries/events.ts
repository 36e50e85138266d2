// The events outbox as the events__fan_out task reads it: a batch of events with their targets, and the
// deliveries made from them (app_private.create_event_deliveries adds nothing when run twice).
import type { Client } from './types.ts';

export interface EventRow {
  id: number;
  uuid: string;
  mode: 'test' | 'live';
  topic: 'client-submission' | 'form-submission' | null;
  event_name: string | null;
  data: Record<string, unknown>;
  created_at: Date;
}

export interface FanOutPlanRow extends EventRow {
  /** Null on the one line of an event without targets. */
  endpoint_id: string | null;
  url: string | null;
  kind: 'topic' | 'subscription' | null;
}

/** The events of a fan-out batch with one line per target, in one round trip (deleted events have no line). */
export async function fanOutPlans(db: Client, eventIds: number[]): Promise<FanOutPlanRow[]> {
  const { rows } = await db.query<FanOutPlanRow>({ name: 'svc_fan_out_plans', text: 'select * from app_private.fan_out_plans($1)', values: [eventIds] });
  return rows;
}

/** Create and queue the deliveries of many events, one per event and endpoint (existing ones are kept); returns how many were created. */
export async function createEventDeliveries(
  db: Client,
  deliveries: Array<{ event_id: number; endpoint_id: string; url: string; body: string }>,
): Promise<number> {
  const { rows } = await db.query<{ n: number }>({
    name: 'svc_create_event_deliveries',
    text: 'select app_private.create_event_deliveries($1) as n',
    values: [JSON.stringify(deliveries)],
  });
  return rows[0].n;
}
