// Outbox events become one delivery per matching endpoint and subscription, queued per endpoint. The payload
// is one event (jobs queued before 0013) or a batch of one agency's events (app_private.emit_event appends to
// the agency's waiting job), read in one statement and turned into deliveries in another.
// Running it twice adds nothing (one delivery per event and endpoint), so a crash between steps loses nothing.
// A target whose body cannot be built is skipped with a logged reason; the others still get the event.
import type { Task } from 'graphile-worker';
import { z } from 'zod';
import { createEventDeliveries, fanOutPlans, type FanOutPlanRow } from '../db/queries/events.ts';
import { envelopeBody, topicEnvelope, v1EventEnvelope, V1_EVENT_NAMES, type V1EventName } from '../pipelines/webhooks/payloads.ts';
import type { TaskDeps } from './context.ts';

const item = z.object({ event_id: z.number().int().positive() });
const payload = z.union([item, z.array(item).min(1)]);

/** The exact body of `event` for a target of `kind`, or why this target cannot take it. */
export function bodyFor(
  event: Pick<FanOutPlanRow, 'uuid' | 'topic' | 'event_name' | 'data' | 'created_at'>,
  kind: 'topic' | 'subscription',
): { body: string } | { skip: string } {
  try {
    if (kind === 'topic') {
      if (!event.topic) return { skip: 'the event has no topic, so a topic endpoint cannot take it' };
      return { body: envelopeBody(topicEnvelope(event.topic, event.data)).toString('utf8') };
    }
    if (!event.event_name || !(V1_EVENT_NAMES as readonly string[]).includes(event.event_name)) {
      return { skip: `the event has no v1 event name a subscription can receive (${event.event_name ?? 'none'})` };
    }
    const envelope = v1EventEnvelope({ id: event.uuid, event: event.event_name as V1EventName, created_at: event.created_at.toISOString(), data: event.data });
    return { body: envelopeBody(envelope).toString('utf8') };
  } catch (err) {
    // A malformed event never reaches partners; the reason names the first invalid field only, never the data.
    const issue = err instanceof z.ZodError ? err.issues[0] : undefined;
    return {
      skip: issue
        ? `the event data does not fit the ${kind} payload (${issue.path.join('.') || '(root)'}: ${issue.message})`
        : `the body could not be built: ${(err as Error).message}`,
    };
  }
}

export function eventsFanOut(_deps: TaskDeps): Task {
  return async (raw, helpers) => {
    const parsed = payload.parse(raw);
    const ids = [...new Set((Array.isArray(parsed) ? parsed : [parsed]).map((p) => p.event_id))];
    // One pooled connection for both statements (named: each connection plans them once).
    await helpers.withPgClient(async (client) => {
      // Events deleted with their agency have no line: no longer relevant.
      const rows = await fanOutPlans(client, ids);
      const deliveries: Array<{ event_id: number; endpoint_id: string; url: string; body: string }> = [];
      let skipped = 0;
      for (const t of rows) {
        if (!t.endpoint_id || !t.url || !t.kind) continue;
        const built = bodyFor(t, t.kind);
        if ('skip' in built) {
          skipped++;
          helpers.logger.warn('webhook target skipped', { eventId: t.id, endpointId: t.endpoint_id, kind: t.kind, reason: built.skip });
          continue;
        }
        deliveries.push({ event_id: t.id, endpoint_id: t.endpoint_id, url: t.url, body: built.body });
      }
      if (!deliveries.length) return;
      const created = await createEventDeliveries(client, deliveries);
      helpers.logger.debug('events fanned out', { events: ids.length, deliveries: created, skipped });
    });
  };
}
