// The OpenAPI 3.1 document, generated from the same route declarations and zod schemas that validate requests.
import { z } from 'zod';
import { ClientSubmissionData, FormSubmissionData, TOPICS, V1_EVENT_NAMES, V1EventData, type Topic } from '../pipelines/webhooks/payloads.ts';
import { isWrite, type RouteSpec } from './route.ts';
import { problem } from './schemas/common.ts';
import { apiError } from './schemas/extractions.ts';

const componentRef = (id: string) => `#/components/schemas/${id}`;

// Named schemas (`.meta({ id })`) land in $defs; they become components and the refs point there.
const collected: Record<string, unknown> = {};

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const raw = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;
  const s = JSON.parse(JSON.stringify(raw).replaceAll('"#/$defs/', '"#/components/schemas/')) as Record<string, unknown>;
  delete s.$schema;
  const defs = (s.$defs ?? {}) as Record<string, unknown>;
  delete s.$defs;
  Object.assign(collected, defs);
  const id = z.globalRegistry.get(schema)?.id;
  if (id && !(id in defs)) {
    collected[id] = s;
    return { $ref: componentRef(id) };
  }
  return s;
}

function parameters(schema: z.ZodType | undefined, where: 'path' | 'query') {
  if (!schema) return [];
  const js = jsonSchema(schema, 'input') as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
  return Object.entries(js.properties ?? {}).map(([name, s]) => ({
    name,
    in: where,
    required: where === 'path' || (js.required ?? []).includes(name),
    ...(s.description ? { description: s.description } : {}),
    schema: s,
  }));
}

const authSchemes: Record<string, string[]> = {
  oauth_client: ['oauthClientToken'],
  agent: ['agentToken'],
  agent_admin: ['agentToken'],
  api_key: ['apiKey'],
  api_key_admin: ['apiKey'],
  api_key_header: ['apiKeyHeader', 'apiKey'],
};

/** API-key auth rules: a read-only key passes them and is refused by the write rule (`http/route.ts`). */
const apiKeyRules = new Set<RouteSpec['auth']>(['api_key', 'api_key_admin', 'api_key_header']);

/** The 403 every write a read-only API key can reach answers it, in the surface's error body, unless declared. */
function readOnlyRefusal(spec: RouteSpec): RouteSpec['responses'] {
  if (!isWrite(spec) || !apiKeyRules.has(spec.auth)) return {};
  const schema = spec.path.startsWith('/v2/') ? problem : apiError;
  return { 403: { description: 'forbidden: a read-only API key (writes need a key with admin permissions)', schema } };
}

/** Build the OpenAPI document for `specs`. */
export function openApiDocument(specs: RouteSpec[], serverUrl: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const spec of specs) {
    const p = spec.path.replace(/[:*]([A-Za-z_]+)/g, '{$1}');
    const requestBody = spec.body || spec.files || spec.docBody ? requestBodyFor(spec) : undefined;
    const responses = Object.fromEntries(
      Object.entries({ ...readOnlyRefusal(spec), ...spec.responses }).map(([status, r]) => {
        const headers = responseHeaders(spec, Number(status), r.headers ?? []);
        return [
          status,
          {
            description: r.description,
            ...(headers.length ? { headers: Object.fromEntries(headers.map((h) => [h, { $ref: `#/components/headers/${h}` }])) } : {}),
            ...(r.schema ? { content: { [contentTypeOf(spec, Number(status))]: { schema: jsonSchema(r.schema, 'output') } } } : {}),
          },
        ];
      }),
    );
    (paths[p] ??= {})[spec.method] = {
      operationId: spec.operationId,
      summary: spec.summary,
      tags: spec.tags,
      // Public operations say so explicitly (`security: []`): token exchange, signed file links, logos.
      security: authSchemes[spec.auth] ? authSchemes[spec.auth].map((s) => ({ [s]: [] })) : [],
      parameters: [...parameters(spec.params, 'path'), ...parameters(spec.query, 'query'), ...(spec.idempotent ? [idempotencyKeyParameter] : [])],
      ...(requestBody ? { requestBody } : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Insurance intake, provisioning and policy-analysis service',
      version: '1.0.0',
      license: { name: 'MIT', identifier: 'MIT' },
      description:
        'Interface contract: SPEC.md. Errors of /v1 are `{ error: { message, details } }`; /oauth/token errors follow RFC 6749 §5.2; /v2 errors are RFC 9457 problem details (`application/problem+json`) with `errors: [{ pointer, detail }]`. Every POST and PATCH under /v2 needs an `Idempotency-Key` header (UUIDv4).',
    },
    servers: [{ url: serverUrl }],
    paths,
    webhooks: { ...topicWebhooks(), ...v1EventWebhooks() },
    components: {
      schemas: collected,
      headers: responseHeaderComponents,
      securitySchemes: {
        oauthClientToken: { type: 'http', scheme: 'bearer', description: 'Access token from POST /oauth/token' },
        agentToken: { type: 'http', scheme: 'bearer', description: 'Agent access token (agt_…)' },
        apiKey: { type: 'http', scheme: 'bearer', description: 'API key: svc_test_… (sandbox data) or svc_live_… (live data)' },
        apiKeyHeader: {
          type: 'apiKey',
          in: 'header',
          name: 'X-API-Key',
          description: 'API key of the /api surface (lease checker, policy extraction): svc_test_… or svc_live_…',
        },
      },
    },
  };
}

/** SPEC §4.1, §8: every write of /v2 carries a fresh UUIDv4 per distinct operation; a retry with the same key replays the answer. */
const idempotencyKeyParameter = {
  name: 'Idempotency-Key',
  in: 'header',
  required: true,
  description: 'A UUIDv4 per distinct operation; a retry with the same key within 24 hours returns the stored answer (Idempotent-Replayed: true)',
  schema: { type: 'string', format: 'uuid' },
};

/** The headers every answer of a route may carry, and those of one status, as component names. */
const responseHeaderComponents = {
  'X-RateLimit-Limit': { description: 'Requests allowed in the current window', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the current window', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'When the current window ends, in Unix seconds', schema: { type: 'integer' } },
  'Retry-After': { description: 'Seconds to wait before trying again', schema: { type: 'integer' } },
  'Idempotent-Replayed': {
    description: '`true` when this is the stored answer of an earlier request with the same Idempotency-Key (no second operation was done)',
    schema: { type: 'string', enum: ['true'] },
  },
  Location: { description: 'Where to read the resource (GET it until it completes)', schema: { type: 'string', format: 'uri-reference' } },
} as const;
type ResponseHeader = keyof typeof responseHeaderComponents;

const RATE_LIMIT_HEADERS: ResponseHeader[] = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];

/**
 * The headers a route's answer with `status` is sent with: the rate-limit headers where a budget was spent (every
 * /api answer, SPEC §8; a /v1 answer once the token is known), Retry-After on a 429, Idempotent-Replayed on the
 * success of an idempotent write, and those the declaration names (Location, the token endpoint's own budget).
 */
function responseHeaders(spec: RouteSpec, status: number, declared: string[]): ResponseHeader[] {
  const out = new Set<ResponseHeader>(declared.filter((h): h is ResponseHeader => h in responseHeaderComponents));
  const limited = spec.rateLimit === 'plan' || (spec.rateLimit === 'v1' && status !== 401);
  if (limited) for (const h of RATE_LIMIT_HEADERS) out.add(h);
  if (status === 429 && (spec.rateLimit || spec.path === '/oauth/token')) {
    for (const h of RATE_LIMIT_HEADERS) out.add(h);
    out.add('Retry-After');
  }
  if (spec.idempotent && status >= 200 && status < 300) out.add('Idempotent-Replayed');
  return [...out];
}

/** /v2 errors are RFC 9457 problem details; every other body is JSON. */
const contentTypeOf = (spec: RouteSpec, status: number) => (status >= 400 && spec.path.startsWith('/v2/') ? 'application/problem+json' : 'application/json');

/** The /api surface (lease checker, policy extraction) takes its documents as multipart/form-data only (SPEC §4.3, §4.4). */
const multipartOnly = (spec: RouteSpec) => spec.auth === 'api_key_header' && !!spec.files;

function requestBodyFor(spec: RouteSpec) {
  const content: Record<string, unknown> = {};
  const bodySchema = spec.docBody ?? spec.body;
  const schema = bodySchema ? jsonSchema(bodySchema, 'input') : { type: 'object' };
  if (!multipartOnly(spec)) {
    content['application/json'] = { schema };
    if (spec.urlencoded) content['application/x-www-form-urlencoded'] = { schema };
  }
  if (spec.files) {
    const props = { ...((schema.properties as Record<string, unknown>) ?? {}) };
    const required = [...((schema.required as string[]) ?? [])];
    for (const [name, f] of Object.entries(spec.files)) {
      props[name] = { type: 'string', format: 'binary', description: f.description };
      // Every document part of the /api surface is required (both files of an analysis, the file of an extraction).
      if ((f.required || multipartOnly(spec)) && !required.includes(name)) required.push(name);
    }
    content['multipart/form-data'] = { schema: { ...schema, type: 'object', properties: props, ...(required.length ? { required } : {}) } };
  }
  return { required: true, content };
}

const signatureCheck =
  'Verify before reading: `x-signature` is the lowercase hex HMAC-SHA256 of the exact raw body bytes keyed with the ' +
  'subscription’s signing secret (the whole `whsec_…` string); compare in constant time and answer 401 on a mismatch. ' +
  'The Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`: `v1,` + base64 HMAC-SHA256 of ' +
  '`id.timestamp.body` keyed with the base64-decoded part after `whsec_`) verify with any Standard Webhooks library. ' +
  'Answer 2xx at once; anything else is retried (at-least-once: de-duplicate on `id`).';

/** The signature headers every delivery carries (SPEC §5, Standard Webhooks), as webhook operation parameters. */
const signatureHeaders = [
  { name: 'x-signature', description: 'Lowercase hex HMAC-SHA256 of the exact raw body, keyed with the endpoint’s signing secret (the whole whsec_… string)' },
  { name: 'webhook-id', description: 'The message id: the same on every retry and redelivery of one event to one endpoint (de-duplicate on it)' },
  { name: 'webhook-timestamp', description: 'Unix seconds when this attempt was signed' },
  { name: 'webhook-signature', description: '`v1,` + base64 HMAC-SHA256 of `id.timestamp.body`, keyed with the base64-decoded part after whsec_' },
].map((h) => ({ ...h, in: 'header', required: true, schema: { type: 'string' } }));

const topicData: Record<Topic, z.ZodType> = { 'client-submission': ClientSubmissionData, 'form-submission': FormSubmissionData };
const topicSummary: Record<Topic, string> = {
  'client-submission': 'Topic client-submission: extracted policy data (SPEC §6.2)',
  'form-submission': 'Topic form-submission: a completed form (SPEC §6.3)',
};

/** A delivery the service POSTs to a receiver as an OpenAPI 3.1 webhook: `envelope` signed, acknowledged by any 2xx, retried on 401. */
function signedDelivery(d: { operationId: string; summary: string; description: string; tag: string; envelope: z.ZodType; refused: string }) {
  return {
    post: {
      operationId: d.operationId,
      summary: d.summary,
      description: d.description,
      tags: [d.tag],
      // Sent by the service: authenticated by the signature headers, not by a credential of the receiver's API.
      security: [],
      parameters: signatureHeaders,
      requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(d.envelope, 'output') } } },
      responses: {
        200: { description: 'Any 2xx acknowledges the delivery' },
        401: { description: d.refused },
      },
    },
  };
}

/**
 * The two topic payloads (SPEC §6.2, §6.3) as OpenAPI 3.1 webhooks: `{ topic, data }` posted to the topic's
 * staging (test data) or production (live data) URL, signed like every delivery. An endpoint may also require
 * its own credentials (Bearer, Basic or an API-key header, sent beside the signature: SPEC §5 rule 3).
 */
function topicWebhooks(): Record<string, unknown> {
  return Object.fromEntries(
    TOPICS.map((topic) => {
      const envelope = z.object({ topic: z.literal(topic), data: topicData[topic] });
      return [
        topic,
        signedDelivery({
          operationId: `topic_${topic.replace(/[^a-z]+/g, '_')}`,
          summary: topicSummary[topic],
          description:
            signatureCheck
              .replace('subscription’s signing secret', 'topic endpoint’s signing secret')
              .replace('de-duplicate on `id`', 'de-duplicate on `webhook-id`') +
            ' An endpoint configured with credentials also receives them (`Authorization: Bearer …`, `Authorization: Basic …` or its own header) beside the signature.',
          tag: 'Webhooks',
          envelope,
          refused: 'The signature (or the configured credential) does not match: the delivery is retried',
        }),
      ];
    }),
  );
}

/** The v1 subscription events (SPEC §6.4) as OpenAPI 3.1 webhooks: the envelope and `data` of each, and the signature check. */
function v1EventWebhooks(): Record<string, unknown> {
  return Object.fromEntries(
    V1_EVENT_NAMES.map((name) => {
      const envelope = z.object({
        id: z.uuid().describe('The event id: the same on every retry and redelivery'),
        event: z.literal(name),
        created_at: z.string().meta({ format: 'date-time' }),
        data: V1EventData[name],
      });
      return [
        name,
        signedDelivery({
          operationId: `event_${name.replace(/[^a-z]+/g, '_')}`,
          summary: `v1 subscription event ${name}`,
          description: signatureCheck,
          tag: 'Webhook subscriptions',
          envelope,
          refused: 'The signature does not match: the delivery is retried',
        }),
      ];
    }),
  );
}
