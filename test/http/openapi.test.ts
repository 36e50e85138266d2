import test from 'ava';
import { allRoutes } from '../../http/app.ts';
import { startService, type TestService } from '../helpers/server.ts';

let svc: TestService;
test.before(async () => {
  svc = await startService();
});
test.after.always(async () => svc?.close());

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
