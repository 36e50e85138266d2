import test from 'ava';
import { allRoutes } from '../../http/app.ts';
import { fileService } from '../helpers/server.ts';

const svc = fileService();

test('GET /openapi.json documents every route with its schemas', async (t) => {
  const r = await svc.request('GET', '/openapi.json');
  t.is(r.status, 200);
  t.is(r.body.openapi, '3.1.0');
  for (const spec of allRoutes) {
    const p = spec.path.replace(/[:*]([A-Za-z_]+)/g, '{$1}');
    const op = r.body.paths[p]?.[spec.method];
    t.truthy(op, `${spec.method} ${p}`);
    t.is(op.operationId, spec.operationId);
  }
  const create = r.body.paths['/v1/agencies'].post;
  t.deepEqual(create.requestBody.content['application/json'].schema.required.sort(), ['agency_name', 'email', 'first_name', 'last_name']);
  t.truthy(r.body.components.schemas.Agent);
  t.truthy(r.body.components.schemas.V1Error);
  const multipart = r.body.paths['/v1/agencies/{agency_id}/agents'].post.requestBody.content['multipart/form-data'].schema;
  t.is(multipart.properties.profile_picture.format, 'binary');
  // The clients API (issue 11): every route, the funnel list with its moves, the client shapes.
  for (const [method, p] of [
    ['post', '/v1/client'],
    ['get', '/v1/agents/{agent_id}/clients'],
    ['get', '/v1/agents/{agent_id}/clients/{client_uuid}'],
    ['patch', '/v1/agents/{agent_id}/clients/{client_uuid}'],
    ['post', '/v1/agents/{agent_id}/clients/{client_uuid}/reassign'],
    ['post', '/v1/agents/{agent_id}/clients/{client_uuid}/destroy'],
    ['patch', '/v1/agents/{agent_id}/additional-questions'],
    ['get', '/v1/agents/{agent_id}/clients/{client_uuid}/submission/{client_submission_uuid}/declaration-page/{client_submission_declaration_page_uuid}'],
  ] as const)
    t.truthy(r.body.paths[p]?.[method], `${method} ${p}`);
  t.regex(r.body.components.schemas.SalesFunnelStatus.description, /new → contacted/);
  for (const name of ['Client', 'ClientDetail', 'ClientList', 'DeclarationPageLink', 'AdditionalQuestionsSettings'])
    t.truthy(r.body.components.schemas[name], name);
  // v1 event payloads beside the signature check.
  for (const name of [
    'client.updated',
    'client.reassigned',
    'client.sales-funnel-status-change',
    'client-submission.complete',
    'client-submission.declaration-page-upload',
  ]) {
    const hook = r.body.webhooks?.[name]?.post;
    t.truthy(hook, name);
    t.regex(hook.description, /x-signature/);
    t.truthy(hook.requestBody.content['application/json'].schema.properties.data.properties.client, `${name} carries the client`);
  }
  t.deepEqual(r.body.webhooks['client.reassigned'].post.requestBody.content['application/json'].schema.properties.data.required.sort(), [
    'agent',
    'client',
    'previous_agent',
    'reassigned_at',
  ]);
  const refs = JSON.stringify(r.body).match(/"#\/components\/schemas\/([A-Za-z0-9_]+)"/g) ?? [];
  for (const ref of refs) t.truthy(r.body.components.schemas[ref.slice('"#/components/schemas/'.length, -1)], ref);
});

test('the document declares the response headers where they are sent, the topic webhooks beside the v1 events, and bodies as accepted', async (t) => {
  const doc = (await svc.request('GET', '/openapi.json')).body;
  const headersOf = (p: string, m: string, status: string) => Object.keys(doc.paths[p][m].responses[status].headers ?? {}).sort();
  const rl = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];
  // /api: the rate-limit headers on every answer, Retry-After on a 429, Location on a running analysis.
  t.deepEqual(headersOf('/api/analyze', 'post', '200'), rl);
  t.deepEqual(headersOf('/api/analyze', 'post', '401'), rl);
  t.deepEqual(headersOf('/api/analyze', 'post', '429'), ['Retry-After', ...rl].sort());
  t.deepEqual(headersOf('/api/analyze', 'post', '202'), ['Location', ...rl].sort());
  t.deepEqual(headersOf('/api/v1/{agent_id}/policy/extractions/{extraction_id}', 'get', '200'), rl);
  // /v1: once the token is known; /v2 writes: Idempotent-Replayed on success.
  t.deepEqual(headersOf('/v1/agencies/{agency_id}', 'get', '200'), rl);
  t.deepEqual(headersOf('/v1/agencies/{agency_id}', 'get', '401'), []);
  t.deepEqual(headersOf('/v1/agencies/{agency_id}', 'get', '429'), ['Retry-After', ...rl].sort());
  t.deepEqual(headersOf('/v2/forms', 'post', '201'), ['Idempotent-Replayed']);
  t.deepEqual(headersOf('/v2/forms', 'post', '422'), []);
  t.deepEqual(headersOf('/oauth/token', 'post', '429'), ['Retry-After', ...rl].sort());
  for (const h of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After', 'Idempotent-Replayed', 'Location'])
    t.truthy(doc.components.headers[h]?.schema, h);
  // Webhooks: the two topics beside the five v1 events, each with the signature headers described.
  t.deepEqual(Object.keys(doc.webhooks).sort(), [
    'client-submission',
    'client-submission.complete',
    'client-submission.declaration-page-upload',
    'client.reassigned',
    'client.sales-funnel-status-change',
    'client.updated',
    'form-submission',
  ]);
  for (const [name, hook] of Object.entries(doc.webhooks as Record<string, { post: any }>)) {
    const params = hook.post.parameters as Array<{ name: string; in: string; description?: string }>;
    t.deepEqual(params.map((p) => p.name).sort(), ['webhook-id', 'webhook-signature', 'webhook-timestamp', 'x-signature'], name);
    for (const p of params) t.truthy(p.description, `${name} ${p.name} is described`);
  }
  const form = doc.webhooks['form-submission'].post.requestBody.content['application/json'].schema;
  t.deepEqual(form.required.sort(), ['data', 'topic']);
  t.is(form.properties.topic.const, 'form-submission');
  t.truthy(form.properties.data.properties.submission_id);
  t.truthy(doc.webhooks['client-submission'].post.requestBody.content['application/json'].schema.properties.data.properties.document_link);
  // /api bodies are multipart only, with their files required.
  const analyze = doc.paths['/api/analyze'].post.requestBody.content;
  t.deepEqual(Object.keys(analyze), ['multipart/form-data']);
  t.deepEqual(analyze['multipart/form-data'].schema.required.sort(), ['insurance', 'lease']);
  t.deepEqual(Object.keys(doc.paths['/api/v1/{agent_id}/policy/extract'].post.requestBody.content), ['multipart/form-data']);
  // Every error answer names its surface's error schema.
  const surfaceError = (p: string) => (p === '/oauth/token' ? 'OAuthError' : p.startsWith('/v2/') ? 'Problem' : p.startsWith('/v1/') ? 'V1Error' : 'ApiError');
  for (const [p, ops] of Object.entries(doc.paths as Record<string, Record<string, { responses: Record<string, any> }>>))
    for (const [m, op] of Object.entries(ops))
      for (const [status, r] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue;
        const content = r.content ?? {};
        const schema = (Object.values(content)[0] as { schema?: { $ref?: string } } | undefined)?.schema;
        t.is(schema?.$ref, `#/components/schemas/${surfaceError(p)}`, `${m} ${p} ${status}`);
        if (p.startsWith('/v2/')) t.deepEqual(Object.keys(content), ['application/problem+json'], `${m} ${p} ${status}`);
      }
});
