// Request and response schemas of bulk delivery recovery, shared by /v2 topic endpoints and /v1 subscriptions.
import { z } from 'zod';
import { timestamp } from './common.ts';
import { TOPIC_NAMES } from './webhooks.ts';

const instant = (what: string) =>
  z.iso
    .datetime({ offset: true, message: `${what} must be an ISO 8601 timestamp with a time zone` })
    .transform((s) => new Date(s))
    .meta({ format: 'date-time' });

export const recoverBody = z
  .object({
    since: instant('since').describe('start of the window (inclusive): deliveries made from this instant'),
    until: instant('until').optional().describe('end of the window (exclusive); default: now'),
  })
  .strict();

export const topicRecoveryParams = z.object({ topic: z.enum(TOPIC_NAMES), recovery_id: z.uuid('must be a UUID') });
export const subscriptionRecoveryParams = z.object({ webhook_uuid: z.uuid('must be a UUID'), recovery_id: z.uuid('must be a UUID') });

export const recovery = z
  .object({
    id: z.uuid(),
    status: z.enum(['running', 'completed']).describe('completed: every recovered delivery has been sent again (see delivered and failed)'),
    mode: z.enum(['test', 'live']).nullable().describe('the mode whose deliveries are recovered; null: both (an agent token)'),
    since: timestamp,
    until: timestamp.nullable(),
    cutoff: timestamp.describe('the end of the window used (until, or the instant the recovery was made)'),
    total: z.number().int().describe('failed deliveries in the window, one per message, sent again in their original order'),
    queued: z.number().int().describe('how many of them were sent again so far (one at a time, in order)'),
    delivered: z.number().int(),
    failed: z.number().int().describe('sent again and failed again (after their retries)'),
    pending: z.number().int().describe('sent again and still being tried'),
    created_at: timestamp,
    completed_at: timestamp.nullable(),
  })
  .meta({ id: 'WebhookRecovery' });
