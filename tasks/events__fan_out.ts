// An outbox event becomes one delivery per matching endpoint and subscription, each queued as its own job.
// Running it twice adds nothing (one delivery per event and endpoint), so a crash between steps loses nothing.
import type { Task } from 'graphile-worker';
import { z } from 'zod';
import { envelopeBody, topicEnvelope, v1EventEnvelope, type V1EventName } from '../pipelines/webhooks/payloads.ts';
import type { TaskDeps } from './context.ts';

const payload = z.object({ event_id: z.number().int().positive() });

interface EventRow {
  id: number;
  uuid: string;
  mode: 'test' | 'live';
  topic: 'client-submission' | 'form-submission' | null;
  event_name: string | null;
  data: Record<string, unknown>;
  created_at: Date;
}

export function eventsFanOut(_deps: TaskDeps): Task {
  return async (raw, helpers) => {
    const { event_id } = payload.parse(raw);
    const { rows } = await helpers.query<EventRow>('select id, uuid, mode, topic, event_name, data, created_at from app_public.events where id = $1', [event_id]);
    const event = rows[0];
    if (!event) return; // deleted with its agency: no longer relevant
    const targets = await helpers.query<{ endpoint_id: string; url: string; kind: 'topic' | 'subscription' }>('select * from app_private.event_targets($1)', [event_id]);
    const deliveries = targets.rows.map((t) => ({
      endpoint_id: t.endpoint_id,
      url: t.url,
      // Built and validated once per target kind; a malformed event fails here, loudly, instead of reaching partners.
      body: envelopeBody(
        t.kind === 'topic'
          ? topicEnvelope(event.topic!, event.data)
          : v1EventEnvelope({ id: event.uuid, event: event.event_name as V1EventName, created_at: event.created_at.toISOString(), data: event.data }),
      ).toString('utf8'),
    }));
    const created = await helpers.query<{ n: number }>('select app_private.create_deliveries($1, $2) as n', [event_id, JSON.stringify(deliveries)]);
    helpers.logger.debug('event fanned out', { eventId: event_id, deliveries: created.rows[0].n });
  };
}
