// An outbox event becomes one delivery per matching endpoint and subscription, each queued as its own job.
// Running it twice adds nothing (one delivery per event and endpoint), so a crash between steps loses nothing.
import type { Task } from 'graphile-worker';
import { z } from 'zod';
import { createDeliveries, eventTargets, getEvent } from '../db/queries/events.ts';
import { envelopeBody, topicEnvelope, v1EventEnvelope, type V1EventName } from '../pipelines/webhooks/payloads.ts';
import type { TaskDeps } from './context.ts';

const payload = z.object({ event_id: z.number().int().positive() });

export function eventsFanOut(_deps: TaskDeps): Task {
  return async (raw, helpers) => {
    const { event_id } = payload.parse(raw);
    const event = await getEvent(helpers, event_id);
    if (!event) return; // deleted with its agency: no longer relevant
    const targets = await eventTargets(helpers, event_id);
    const deliveries = targets.map((t) => ({
      endpoint_id: t.endpoint_id,
      url: t.url,
      // Built and validated once per target kind; a malformed event fails here, loudly, instead of reaching partners.
      body: envelopeBody(
        t.kind === 'topic'
          ? topicEnvelope(event.topic!, event.data)
          : v1EventEnvelope({ id: event.uuid, event: event.event_name as V1EventName, created_at: event.created_at.toISOString(), data: event.data }),
      ).toString('utf8'),
    }));
    const created = await createDeliveries(helpers, event_id, deliveries);
    helpers.logger.debug('event fanned out', { eventId: event_id, deliveries: created });
  };
}
