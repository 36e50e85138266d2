// The OpenAPI 3.1 document, generated from the same route declarations and zod schemas that validate requests.
import { z } from 'zod';
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
      description: 'Interface contract: SPEC.md. Errors of /v1 are `{ error: { message, details } }`; /oauth/token errors follow RFC 6749 §5.2; /v2 errors are RFC 9457 problem details (`application/problem+json`) with `errors: [{ pointer, detail }]`. Every POST and PATCH under /v2 needs an `Idempotency-Key` header (UUIDv4).',
    },
    servers: [{ url: serverUrl }],
    paths,
    components: {
      schemas: collected,
      securitySchemes: {
        oauthClientToken: { type: 'http', scheme: 'bearer', description: 'Access token from POST /oauth/token' },
        agentToken: { type: 'http', scheme: 'bearer', description: 'Agent access token (agt_…)' },
        apiKey: { type: 'http', scheme: 'bearer', description: 'API key: svc_test_… (sandbox data) or svc_live_… (live data)' },
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
