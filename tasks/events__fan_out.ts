// Outbox events become one delivery per matching endpoint and subscription, queued per endpoint. The job is
// per agency (payload {agency_id}, woken by app_private.emit_event): it fans out the agency's waiting events a
// batch at a time, each batch read and locked in one statement and turned into deliveries in another, in one
// transaction, until none waits. Jobs queued before 0013 name one event ({event_id}).
// Running it twice adds nothing (one delivery per event and endpoint), so a crash between steps loses nothing.
// A target whose body cannot be built is skipped with a logged reason; the others still get the event.
import type { JobHelpers, Task } from 'graphile-worker';
import { z } from 'zod';
import { createEventDeliveries, fanOutBatch, fanOutPlans, type FanOutPlanRow } from '../db/queries/events.ts';
import type { Client } from '../db/queries/types.ts';
import { envelopeBody, topicEnvelope, v1EventEnvelope, V1_EVENT_NAMES, type V1EventName } from '../pipelines/webhooks/payloads.ts';
import type { TaskDeps } from './context.ts';

const payload = z.union([z.object({ agency_id: z.number().int().positive() }), z.object({ event_id: z.number().int().positive() })]);

/** Events fanned out per transaction: large enough to amortise the round trips, small enough to keep locks short. */
const BATCH = 500;

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

/** The deliveries of planned events, skipping (with a logged reason) the targets that cannot take them. */
function deliveriesOf(rows: FanOutPlanRow[], logger: JobHelpers['logger']) {
  const deliveries: Array<{ event_id: number; endpoint_id: string; url: string; body: string }> = [];
  for (const t of rows) {
    if (!t.endpoint_id || !t.url || !t.kind) continue;
    const built = bodyFor(t, t.kind);
    if ('skip' in built) {
      logger.warn('webhook target skipped', { eventId: t.id, endpointId: t.endpoint_id, kind: t.kind, reason: built.skip });
      continue;
    }
    deliveries.push({ event_id: t.id, endpoint_id: t.endpoint_id, url: t.url, body: built.body });
  }
  return deliveries;
}

export function eventsFanOut(deps: TaskDeps): Task {
  return async (raw, helpers) => {
    const parsed = payload.parse(raw);
    await helpers.withPgClient(async (client: Client) => {
      if ('event_id' in parsed) {
        // A job queued before 0013; a deleted event has no line: no longer relevant.
        const rows = await fanOutPlans(client, [parsed.event_id]);
        if (rows.length) await createEventDeliveries(client, [parsed.event_id], deliveriesOf(rows, helpers.logger));
        return;
      }
      for (;;) {
        await client.query('begin');
        let events = 0;
        try {
          const rows = await fanOutBatch(client, parsed.agency_id, BATCH);
          const ids = [...new Set(rows.map((r) => r.id))];
          events = ids.length;
          const created = ids.length ? await createEventDeliveries(client, ids, deliveriesOf(rows, helpers.logger)) : 0;
          await client.query('commit');
          if (ids.length) helpers.logger.debug('events fanned out', { events: ids.length, deliveries: created });
          // The job serves many requests: one line per event carries the request id that emitted it.
          const seen = new Set<number>();
          for (const r of rows) {
            if (seen.has(r.id)) continue;
            seen.add(r.id);
            deps.log.info('event fanned out', {
              component: 'worker',
              task: 'events__fan_out',
              jobId: helpers.job.id,
              eventId: r.id,
              requestId: r.request_id ?? undefined,
            });
          }
        } catch (err) {
          await client.query('rollback').catch(() => {});
          throw err;
        }
        if (events < BATCH) return;
      }
    });
  };
}
