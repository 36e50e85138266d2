import { z } from 'zod';
import { EndpointAuth } from '../../pipelines/webhooks/deliver.ts';
import { TOPICS, V1_EVENT_NAMES, V1_WILDCARD } from '../../pipelines/webhooks/payloads.ts';
import { canonicalWebhookUrl } from '../../pipelines/webhooks/url.ts';
import { id, queryInt, timestamp } from './common.ts';

export const TOPIC_NAMES = TOPICS;
/** SPEC §6.4; `*` subscribes to all. */
export const SUBSCRIPTION_EVENTS = [V1_WILDCARD, ...V1_EVENT_NAMES] as const;

// One parse with `new URL` (in canonicalWebhookUrl): a string refused there is refused here (422), and what is
// stored is the canonical spelling, so the URL checked at registration is the URL sent to.
const httpUrl = z
  .string()
  .trim()
  .max(2000)
  .transform((u, ctx) => {
    const c = canonicalWebhookUrl(u);
    if (c.ok) return c.url;
    ctx.addIssue({ code: 'custom', message: c.message });
    return z.NEVER;
  })
  .meta({ format: 'uri' });

export const endpointAuth = EndpointAuth.meta({
  id: 'EndpointAuth',
  description: 'Credentials sent with each delivery besides the signature (SPEC §5 rule 3): bearer, basic or one header; stored encrypted, never returned.',
});

export const topicParams = z.object({ topic: z.enum(TOPIC_NAMES) });
export const topicDeliveryParams = z.object({ topic: z.enum(TOPIC_NAMES), delivery_id: id });
export const subscriptionParams = z.object({ webhook_uuid: z.uuid('must be a UUID') });
export const subscriptionDeliveryParams = z.object({ webhook_uuid: z.uuid('must be a UUID'), delivery_id: id });

export const putEndpointBody = z
  .object({
    staging_url: httpUrl.nullable().optional().describe('Receives events of test-mode data and test events'),
    production_url: httpUrl.nullable().optional().describe('Receives events of live data; must be https'),
    auth: endpointAuth.nullable().optional(),
    enabled: z.boolean().optional().describe('true re-enables a disabled endpoint and resumes its pending deliveries'),
  })
  .strict();

export const createSubscriptionBody = z
  .object({
    url: httpUrl,
    events: z
      .array(z.enum(SUBSCRIPTION_EVENTS, `must be one of ${SUBSCRIPTION_EVENTS.join(', ')}`))
      .min(1)
      .max(SUBSCRIPTION_EVENTS.length),
    description: z.string().trim().max(500).optional(),
    enabled: z.boolean().optional(),
    auth: endpointAuth.nullable().optional(),
  })
  .strict();

export const updateSubscriptionBody = createSubscriptionBody.partial().strict();

export const listDeliveriesQuery = z.object({
  limit: queryInt(1, 100).default(20),
  cursor: z.string().max(200).optional(),
  status: z.enum(['pending', 'delivered', 'failed']).optional(),
});

const endpointState = {
  enabled: z.boolean(),
  disabled_reason: z.string().nullable(),
  disabled_at: timestamp.nullable(),
  failing_since: timestamp.nullable(),
  auth: z.object({ kind: z.enum(['bearer', 'basic', 'header']) }).nullable(),
  created_at: timestamp,
  updated_at: timestamp,
};

export const topicEndpoint = z
  .object({
    topic: z.enum(TOPIC_NAMES),
    staging_url: z.string().nullable(),
    production_url: z
      .string()
      .nullable()
      .describe('Receives live data; null when unset, and always null for a sandbox (svc_test_) key, which may set the staging_url only'),
    ...endpointState,
  })
  .meta({ id: 'WebhookEndpoint' });
export const topicEndpointWithSecret = topicEndpoint
  .extend({ signing_secret: z.string().describe('Shown only on creation and rotation; verify x-signature with it') })
  .meta({ id: 'WebhookEndpointWithSecret' });

export const subscription = z
  .object({ uuid: z.string(), url: z.string(), events: z.array(z.string()), description: z.string().nullable(), ...endpointState })
  .meta({ id: 'WebhookSubscription' });
export const subscriptionWithSecret = subscription.extend({ signing_secret: z.string() }).meta({ id: 'WebhookSubscriptionWithSecret' });

export const delivery = z
  .object({
    id: z.number().int(),
    message_id: z.string().describe('webhook-id header; the same for redeliveries of one message'),
    event_id: z.number().int().nullable(),
    redelivery_of: z.number().int().nullable(),
    status: z.enum(['pending', 'delivered', 'failed']),
    is_test: z.boolean(),
    mode: z.enum(['test', 'live']),
    url: z.string(),
    attempt_count: z.number().int(),
    next_attempt_at: timestamp.nullable(),
    last_status_code: z.number().int().nullable(),
    last_error: z.string().nullable(),
    created_at: timestamp,
    completed_at: timestamp.nullable(),
  })
  .meta({ id: 'WebhookDelivery' });

export const deliveryAttempt = z
  .object({
    attempt_number: z.number().int(),
    url: z.string(),
    started_at: timestamp,
    duration_ms: z.number().int(),
    status_code: z.number().int().nullable(),
    response_headers: z.record(z.string(), z.string()),
    response_body: z.string().nullable().describe('Truncated to a few KB'),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
  })
  .meta({ id: 'WebhookDeliveryAttempt' });

export const deliveryDetail = delivery
  .extend({ body: z.string().describe('The exact bytes sent'), attempts: z.array(deliveryAttempt) })
  .meta({ id: 'WebhookDeliveryDetail' });
export const deliveryList = z.object({ data: z.array(delivery), next_cursor: z.string().nullable() }).meta({ id: 'WebhookDeliveryList' });
