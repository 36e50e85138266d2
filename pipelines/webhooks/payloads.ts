// What a delivery carries: the two topic envelopes of SPEC §6.1–6.3, the envelope of v1 subscription
// events (§6.4, designed here), sample payloads for "send a test event", and the de-duplication hash.
import { createHash, randomUUID } from 'node:crypto';
import { z } from 'zod';
import { canonicalJson } from '../../lib/json.ts';

export const TOPICS = ['client-submission', 'form-submission'] as const;
export type Topic = (typeof TOPICS)[number];

/** Concrete v1 event names (§6.4); a subscription may also list `*` for all of them. */
export const V1_EVENT_NAMES = [
  'client-submission.complete',
  'client-submission.declaration-page-upload',
  'client.reassigned',
  'client.updated',
  'client.sales-funnel-status-change',
] as const;
export type V1EventName = (typeof V1_EVENT_NAMES)[number];
export const V1_WILDCARD = '*';
/** What a subscription's `events` list may contain. */
export const V1SubscriptionEvent = z.enum([V1_WILDCARD, ...V1_EVENT_NAMES]);

/** True when a subscription listing `events` receives `event`. */
export function subscriptionMatches(events: readonly string[], event: V1EventName): boolean {
  return events.includes(V1_WILDCARD) || events.includes(event);
}

// ---- topic `client-submission` (§6.2) ---------------------------------------------------------------

const isoUtc = z.iso.datetime({ offset: false });
const link = z.url({ protocol: /^https?$/ });

/** Extracted policy data; beyond the listed fields it depends on policy_type, so unknown keys pass through. */
export const ClientSubmissionData = z.looseObject({
  document_link: link,
  policy_type: z.string().min(1),
  policy: z.looseObject({ provider: z.string().nullable(), policy_number: z.string().nullable() }),
  policyholder: z.looseObject({ first_name: z.string().nullable(), last_name: z.string().nullable() }),
  vehicles: z.array(z.looseObject({})).optional(),
});
export type ClientSubmissionData = z.infer<typeof ClientSubmissionData>;

// ---- topic `form-submission` (§6.3) -----------------------------------------------------------------

const AgentRef = z.object({ id: z.number().int(), name: z.string(), email: z.string() }).strict();
const FileValue = z.object({ filename: z.string(), content_type: z.string(), url: link }).strict();
const FileValues = z.array(FileValue);

export const FormSubmissionData = z
  .object({
    form: z.object({ id: z.number().int(), public_id: z.string(), name: z.string(), insurance_line: z.string() }).strict(),
    submission_id: z.number().int(),
    trace_id: z.string().min(1),
    submitted_at: isoUtc,
    agent: AgentRef,
    contact: z.object({ name: z.string().nullish(), email: z.string().nullish(), phone: z.string().nullish() }).strict().optional(),
    answers: z.array(z.object({ question_id: z.string(), label: z.string(), type: z.string(), value: z.unknown() }).strict()),
    acord: z
      .object({ is_acord_ready: z.boolean(), form_ids: z.array(z.string()), archive_url: link })
      .strict()
      .optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .strict()
  .superRefine((d, ctx) => {
    d.answers.forEach((a, i) => {
      if (a.type === 'file_upload' && !FileValues.safeParse(a.value).success) {
        ctx.addIssue({ code: 'custom', path: ['answers', i, 'value'], message: 'file_upload value is a list of { filename, content_type, url }' });
      }
    });
  });
export type FormSubmissionData = z.infer<typeof FormSubmissionData>;

export const TopicEnvelope = z.discriminatedUnion('topic', [
  z.object({ topic: z.literal('client-submission'), data: ClientSubmissionData }).strict(),
  z.object({ topic: z.literal('form-submission'), data: FormSubmissionData }).strict(),
]);
export type TopicEnvelope = z.infer<typeof TopicEnvelope>;

/** `{ topic, data }` (§6.1), validated. */
export function topicEnvelope<T extends Topic>(topic: T, data: unknown): TopicEnvelope {
  return TopicEnvelope.parse({ topic, data });
}

// ---- v1 subscription events (§6.4) ------------------------------------------------------------------

/** A client's name and contact as v1 shows them, in an event's client and in the API's (http/schemas/clients.ts). */
export const clientContactFields = {
  first_name: z.string().nullable(),
  last_name: z.string().nullable(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
};

const ClientRef = z
  .object({
    uuid: z.uuid(),
    ...clientContactFields,
    sales_funnel_status: z.string().nullable(),
    agent: AgentRef.nullable(),
  })
  .strict();

/** The `data` of each v1 event. */
export const V1EventData = {
  'client-submission.complete': z
    .object({
      client: ClientRef,
      submission: z.object({ uuid: z.uuid(), completed_at: isoUtc }).strict(),
      /** The same object a `client-submission` topic delivery carries in `data`. */
      policy_data: ClientSubmissionData,
    })
    .strict(),
  'client-submission.declaration-page-upload': z
    .object({
      client: ClientRef,
      submission_uuid: z.uuid().nullable(),
      declaration_page: z
        .object({
          uuid: z.uuid(),
          filename: z.string(),
          content_type: z.string(),
          size_bytes: z.number().int().nonnegative(),
          uploaded_at: isoUtc,
          document_link: link,
        })
        .strict(),
    })
    .strict(),
  'client.reassigned': z.object({ client: ClientRef, previous_agent: AgentRef.nullable(), agent: AgentRef, reassigned_at: isoUtc }).strict(),
  'client.updated': z.object({ client: ClientRef, changed_fields: z.array(z.string()).min(1), updated_at: isoUtc }).strict(),
  'client.sales-funnel-status-change': z.object({ client: ClientRef, previous_status: z.string().nullable(), status: z.string(), changed_at: isoUtc }).strict(),
} satisfies Record<V1EventName, z.ZodType>;

/** `{ id, event, created_at, data }`: id is the event's UUID, the same on every retry and redelivery. */
export const V1EventEnvelope = z
  .object({ id: z.uuid(), event: z.enum(V1_EVENT_NAMES), created_at: isoUtc, data: z.looseObject({}) })
  .strict()
  .superRefine((e, ctx) => {
    const r = V1EventData[e.event].safeParse(e.data);
    if (!r.success) for (const issue of r.error.issues) ctx.addIssue({ ...issue, path: ['data', ...issue.path] } as never);
  });
export type V1EventEnvelope = { id: string; event: V1EventName; created_at: string; data: Record<string, unknown> };

/** A validated v1 event envelope; id and created_at default to a new UUID and now. */
export function v1EventEnvelope(input: { event: V1EventName; data: unknown; id?: string; created_at?: string }): V1EventEnvelope {
  return V1EventEnvelope.parse({
    id: input.id ?? randomUUID(),
    event: input.event,
    created_at: input.created_at ?? new Date().toISOString(),
    data: input.data,
  }) as V1EventEnvelope;
}

/** The exact bytes sent (and signed) for an envelope: compact JSON, UTF-8. */
export function envelopeBody(envelope: TopicEnvelope | V1EventEnvelope): Buffer {
  return Buffer.from(envelopeJson(envelope), 'utf8');
}

/** envelopeBody as text (what a delivery row stores), without the round trip through a Buffer. */
export function envelopeJson(envelope: TopicEnvelope | V1EventEnvelope): string {
  return JSON.stringify(envelope);
}

// ---- de-duplication --------------------------------------------------------------------------------

export { canonicalJson };

/** Lowercase hex SHA-256 of canonicalJson(data): the de-duplication key of `client-submission` deliveries (§6.2). */
export function contentHash(data: unknown): string {
  return createHash('sha256').update(canonicalJson(data), 'utf8').digest('hex');
}

// ---- samples for "send a test event" ------------------------------------------------------------------

const SAMPLE_AGENT = { id: 42, name: 'Dana Whitfield', email: 'dana.whitfield@example-agency.com' };
const SAMPLE_PREVIOUS_AGENT = { id: 17, name: 'Marcus Lee', email: 'marcus.lee@example-agency.com' };
const SAMPLE_CLIENT = {
  uuid: '3f1c9a2e-8b7d-4c5e-9f10-2a3b4c5d6e7f',
  first_name: 'Jordan',
  last_name: 'Alvarez',
  email: 'jordan.alvarez@example.com',
  phone: '+1 512 555 0142',
  sales_funnel_status: 'quoted',
  agent: SAMPLE_AGENT,
};
const SAMPLE_LINK = (path: string) => `https://files.example.com/sample/${path}?expires=1893456000&signature=sample`;

const SAMPLE_POLICY_DATA: ClientSubmissionData = {
  document_link: SAMPLE_LINK('declarations-auto.pdf'),
  policy_type: 'Personal Auto',
  policy: {
    provider: 'Lone Star Mutual Insurance Co.',
    policy_number: 'PA-2291-448817',
    effective_date: '2026-01-15',
    expiration_date: '2026-07-15',
    premium: { amount: 742.18, currency: 'USD', term_months: 6 },
  },
  policyholder: {
    first_name: 'Jordan',
    last_name: 'Alvarez',
    address: { line1: '1208 Barton Hills Dr', city: 'Austin', state: 'TX', postal_code: '78704', country: 'US' },
  },
  vehicles: [
    { year: 2021, make: 'Toyota', model: 'RAV4', vin: 'JTMW1RFV5MD012345', usage: 'commute' },
    { year: 2017, make: 'Honda', model: 'Civic', vin: '19XFC2F59HE012345', usage: 'pleasure' },
  ],
  drivers: [
    { first_name: 'Jordan', last_name: 'Alvarez', date_of_birth: '1988-04-09', license_state: 'TX' },
    { first_name: 'Riley', last_name: 'Alvarez', date_of_birth: '1990-11-23', license_state: 'TX' },
  ],
  coverages: [
    { name: 'Bodily Injury Liability', limit: '100,000/300,000', deductible: null },
    { name: 'Property Damage Liability', limit: '100,000', deductible: null },
    { name: 'Collision', limit: 'Actual Cash Value', deductible: 500 },
    { name: 'Comprehensive', limit: 'Actual Cash Value', deductible: 250 },
  ],
};

const SAMPLE_FORM_SUBMISSION: FormSubmissionData = {
  form: { id: 981, public_id: 'f_9c2e4b7a1d3f5e6a8b0c', name: 'Homeowners quote request', insurance_line: 'home' },
  submission_id: 555123,
  trace_id: 'trc_01JD5V8ZK3M4N5P6Q7R8S9T0UV',
  submitted_at: '2026-11-20T15:04:05.000Z',
  agent: SAMPLE_AGENT,
  contact: { name: 'Jordan Alvarez', email: 'jordan.alvarez@example.com', phone: '+1 512 555 0142' },
  answers: [
    { question_id: 'full_name', label: 'Full name', type: 'short_text', value: 'Jordan Alvarez' },
    { question_id: 'property_address', label: 'Property address', type: 'short_text', value: '1208 Barton Hills Dr, Austin, TX 78704' },
    { question_id: 'year_built', label: 'Year built', type: 'number', value: 1994 },
    { question_id: 'has_pool', label: 'Is there a swimming pool?', type: 'single_choice', value: 'No' },
    { question_id: 'coverage_start', label: 'When should coverage start?', type: 'date', value: '2027-01-01' },
    {
      question_id: 'current_declarations',
      label: 'Upload your current declarations page',
      type: 'file_upload',
      value: [{ filename: 'declarations-home.pdf', content_type: 'application/pdf', url: SAMPLE_LINK('declarations-home.pdf') }],
    },
  ],
  acord: { is_acord_ready: true, form_ids: ['ACORD 80'], archive_url: SAMPLE_LINK('acord-555123.zip') },
  metadata: { crm_lead_id: 'lead_7781', campaign: 'fall-home-2026' },
};

/** A realistic `{ topic, data }` for the topic's "send a test event" (fixed content, so its hash is stable). */
export function sampleTopicPayload(topic: Topic): TopicEnvelope {
  return topic === 'client-submission'
    ? topicEnvelope(topic, structuredClone(SAMPLE_POLICY_DATA))
    : topicEnvelope(topic, structuredClone(SAMPLE_FORM_SUBMISSION));
}

const SAMPLE_EVENT_DATA: Record<V1EventName, unknown> = {
  'client-submission.complete': {
    client: SAMPLE_CLIENT,
    submission: { uuid: '8d2e4f60-1a3b-4c5d-8e9f-0a1b2c3d4e5f', completed_at: '2026-11-20T15:04:05.000Z' },
    policy_data: SAMPLE_POLICY_DATA,
  },
  'client-submission.declaration-page-upload': {
    client: SAMPLE_CLIENT,
    submission_uuid: '8d2e4f60-1a3b-4c5d-8e9f-0a1b2c3d4e5f',
    declaration_page: {
      uuid: 'c4b3a291-7e6d-4f5a-b8c9-d0e1f2a3b4c5',
      filename: 'declarations-auto.pdf',
      content_type: 'application/pdf',
      size_bytes: 184_320,
      uploaded_at: '2026-11-20T14:58:41.000Z',
      document_link: SAMPLE_LINK('declarations-auto.pdf'),
    },
  },
  'client.reassigned': {
    client: SAMPLE_CLIENT,
    previous_agent: SAMPLE_PREVIOUS_AGENT,
    agent: SAMPLE_AGENT,
    reassigned_at: '2026-11-20T16:10:00.000Z',
  },
  'client.updated': {
    client: SAMPLE_CLIENT,
    changed_fields: ['email', 'phone'],
    updated_at: '2026-11-20T16:20:00.000Z',
  },
  'client.sales-funnel-status-change': {
    client: SAMPLE_CLIENT,
    previous_status: 'contacted',
    status: 'quoted',
    changed_at: '2026-11-20T16:30:00.000Z',
  },
};

/** A realistic v1 event envelope for "send a test event"; a fresh id each call, since each test send is a new event. */
export function sampleV1Event(name: V1EventName, now: Date = new Date()): V1EventEnvelope {
  return v1EventEnvelope({ event: name, data: structuredClone(SAMPLE_EVENT_DATA[name]), created_at: now.toISOString() });
}
