// Delivery rows → the delivery log shapes shared by both surfaces (SPEC §6.3).
import type { DeliveryAttemptRow, DeliveryRow } from '../../db/queries/deliveries.ts';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function presentDelivery(d: DeliveryRow) {
  return {
    id: d.id,
    message_id: d.message_id,
    event_id: d.event_id,
    redelivery_of: d.redelivery_of,
    status: d.status,
    is_test: d.is_test,
    mode: d.mode,
    url: d.url,
    attempt_count: d.attempt_count,
    next_attempt_at: iso(d.next_attempt_at),
    last_status_code: d.last_status_code,
    last_error: d.last_error,
    created_at: d.created_at.toISOString(),
    completed_at: iso(d.completed_at),
  };
}

export function presentDeliveryAttempt(a: DeliveryAttemptRow) {
  return {
    attempt_number: a.attempt_number,
    url: a.url,
    started_at: a.started_at.toISOString(),
    duration_ms: a.duration_ms,
    status_code: a.status_code,
    response_headers: a.response_headers,
    response_body: a.response_body,
    error: a.error_code ? { code: a.error_code, message: a.error_message ?? '' } : null,
  };
}

/** One delivery with the exact body sent and every attempt. */
export function presentDeliveryDetail(d: DeliveryRow, attempts: DeliveryAttemptRow[]) {
  return { ...presentDelivery(d), body: d.body ?? '', attempts: attempts.map(presentDeliveryAttempt) };
}
