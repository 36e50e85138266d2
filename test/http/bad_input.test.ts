// Malformed requests get a clear error in each surface's documented shape, never a crash.
import test from 'ava';
import { startService, type TestService } from '../helpers/server.ts';

let svc: TestService;
let oauth: string;
let key: string;
test.before(async () => {
  svc = await startService();
  oauth = (await svc.oauthClient()).token;
  const a = await svc.agency(oauth);
  key = await svc.apiKey(a.ownerToken, a.agencyId);
});
test.after.always(async () => svc?.close());

const raw = (method: string, path: string, body: string, headers: Record<string, string>) =>
  fetch(svc.url + path, { method, body, headers }).then(async (r) => ({
    status: r.status,
    type: r.headers.get('content-type'),
    body: JSON.parse(await r.text()),
  }));

test('v1: broken JSON, a JSON array, a huge body and a wrong content type', async (t) => {
  const h = { authorization: `Bearer ${oauth}`, 'content-type': 'application/json' };
  const broken = await raw('POST', '/v1/agencies', '{"agency_name": ', h);
  t.is(broken.status, 400);
  t.truthy(broken.body.error.message);
  const array = await raw('POST', '/v1/agencies', '[1,2]', h);
  t.is(array.status, 422);
  t.truthy(array.body.error.message);
  const huge = await raw('POST', '/v1/agencies', JSON.stringify({ agency_name: 'x'.repeat(2 * 1024 * 1024) }), h);
  t.is(huge.status, 413);
  t.truthy(huge.body.error.message);
  const text = await raw('POST', '/v1/agencies', 'agency_name=x', { authorization: `Bearer ${oauth}`, 'content-type': 'text/plain' });
  t.is(text.status, 422);
  t.true(text.body.error.details.length > 0);
});

test('v2: broken JSON and huge bodies are problem details', async (t) => {
  const h = { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() };
  const broken = await raw('POST', '/v2/forms', '{"name": ', h);
  t.is(broken.status, 400);
  t.is(broken.type, 'application/problem+json');
  t.is(broken.body.status, 400);
  const huge = await raw('PATCH', '/v2/forms/1', JSON.stringify({ steps: ['x'.repeat(2 * 1024 * 1024)] }), { ...h, 'idempotency-key': crypto.randomUUID() });
  t.is(huge.status, 413);
  t.is(huge.type, 'application/problem+json');
});

test('oauth: a huge or broken body is an RFC 6749 invalid_request', async (t) => {
  const broken = await raw('POST', '/oauth/token', '{"grant_type": ', { 'content-type': 'application/json' });
  t.is(broken.status, 400);
  t.is(broken.body.error, 'invalid_request');
});
