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
  const refs = JSON.stringify(r.body).match(/"#\/components\/schemas\/([A-Za-z0-9_]+)"/g) ?? [];
  for (const ref of refs) t.truthy(r.body.components.schemas[ref.slice('"#/components/schemas/'.length, -1)], ref);
});
