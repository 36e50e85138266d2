// Webhook endpoint rows → a v2 topic endpoint (SPEC §6.1) or a v1 subscription (§6.4); secrets are never in
// a row, and appear only where a route adds the one it just minted.
import type { EndpointRow } from '../../db/queries/webhook_endpoints.ts';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** What both kinds show: whether it is enabled and why not, credentials kind, timestamps. */
export function presentEndpointState(w: EndpointRow) {
  return {
    enabled: w.enabled,
    disabled_reason: w.disabled_reason,
    disabled_at: iso(w.disabled_at),
    failing_since: iso(w.failing_since),
    auth: w.auth_kind ? { kind: w.auth_kind } : null,
    created_at: w.created_at.toISOString(),
    updated_at: w.updated_at.toISOString(),
  };
}

export function presentTopicEndpoint(w: EndpointRow) {
  return { topic: w.topic!, staging_url: w.staging_url, production_url: w.production_url, ...presentEndpointState(w) };
}

export function presentSubscription(w: EndpointRow) {
  return { uuid: w.id, url: w.url!, events: w.events, description: w.description, ...presentEndpointState(w) };
}
