// The OpenAPI 3.1 document, generated from the same route declarations and zod schemas that validate requests.
import { z } from 'zod';
import { V1_EVENT_NAMES, V1EventData } from '../pipelines/webhooks/payloads.ts';
import type { RouteSpec } from './route.ts';

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

/** Build the OpenAPI document for `specs`. */
export function openApiDocument(specs: RouteSpec[], serverUrl: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const spec of specs) {
    const p = spec.path.replace(/[:*]([A-Za-z_]+)/g, '{$1}');
    const requestBody = spec.body || spec.files || spec.docBody ? requestBodyFor(spec) : undefined;
    const responses = Object.fromEntries(
      Object.entries(spec.responses).map(([status, r]) => [
        status,
        {
          description: r.description,
          ...(r.schema ? { content: { 'application/json': { schema: jsonSchema(r.schema, 'output') } } } : {}),
        },
      ]),
    );
    (paths[p] ??= {})[spec.method] = {
      operationId: spec.operationId,
      summary: spec.summary,
      tags: spec.tags,
      // Public operations say so explicitly (`security: []`): token exchange, signed file links, logos.
      security: authSchemes[spec.auth] ? authSchemes[spec.auth].map((s) => ({ [s]: [] })) : [],
      parameters: [...parameters(spec.params, 'path'), ...parameters(spec.query, 'query')],
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
    webhooks: v1EventWebhooks(),
    components: {
      schemas: collected,
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

function requestBodyFor(spec: RouteSpec) {
  const content: Record<string, unknown> = {};
  const bodySchema = spec.docBody ?? spec.body;
  if (bodySchema) {
    const schema = jsonSchema(bodySchema, 'input');
    content['application/json'] = { schema };
    if (spec.urlencoded) content['application/x-www-form-urlencoded'] = { schema };
    if (spec.files) {
      const props = { ...((schema.properties as Record<string, unknown>) ?? {}) };
      for (const [name, f] of Object.entries(spec.files)) props[name] = { type: 'string', format: 'binary', description: f.description };
      content['multipart/form-data'] = { schema: { ...schema, properties: props } };
    }
  }
  return { required: true, content };
}

const signatureCheck =
  'Verify before reading: `x-signature` is the lowercase hex HMAC-SHA256 of the exact raw body bytes keyed with the ' +
  'subscription’s signing secret (the whole `whsec_…` string); compare in constant time and answer 401 on a mismatch. ' +
  'The Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`: `v1,` + base64 HMAC-SHA256 of ' +
  '`id.timestamp.body` keyed with the base64-decoded part after `whsec_`) verify with any Standard Webhooks library. ' +
  'Answer 2xx at once; anything else is retried (at-least-once: de-duplicate on `id`).';

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
        {
          post: {
            operationId: `event_${name.replace(/[^a-z]+/g, '_')}`,
            summary: `v1 subscription event ${name}`,
            description: signatureCheck,
            tags: ['Webhook subscriptions'],
            // Sent by the service: authenticated by the signature headers, not by a credential of the receiver's API.
            security: [],
            parameters: ['x-signature', 'webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => ({
              name: h,
              in: 'header',
              required: true,
              schema: { type: 'string' },
            })),
            requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(envelope, 'output') } } },
            responses: {
              200: { description: 'Any 2xx acknowledges the delivery' },
              401: { description: 'The signature does not match: the delivery is retried' },
            },
          },
        },
      ];
    }),
  );
}
