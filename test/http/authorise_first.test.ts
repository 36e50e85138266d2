// Authorisation before validation, on every route whose path names a resource and that takes a body: another
// agency's resource answers 404 (or 403, SPEC §5 rule 4, §7.3) whatever the body, so an invalid body cannot
// tell the caller whether the resource exists.
import test from 'ava';
import { fileService } from '../helpers/server.ts';

const svc = fileService({ WEBHOOK_ALLOW_HOSTS: '127.0.0.1' });

test('another agency’s resources are 403/404 whatever the body, never a validation error first', async (t) => {
  const mine = await svc.oauthClient('Mine');
  const theirs = await svc.oauthClient('Theirs');
  const a = await svc.agency(mine.token);
  const b = await svc.agency(theirs.token);
  const aKey = await svc.apiKey(a.ownerToken, a.agencyId, 'test');
  const bKey = await svc.apiKey(b.ownerToken, b.agencyId, 'test');
  const keys = await svc.request('GET', `/v1/agencies/${a.agencyId}/api-keys`, { token: a.ownerToken });
  const keyId = keys.body.data[0].id;
  const client = await svc.request('POST', '/v1/client', { token: a.ownerToken, json: { first_name: 'Cora', last_name: 'Client' } });
  t.is(client.status, 200, client.text);
  const sub = await svc.request('POST', '/v1/webhooks', { token: a.ownerToken, json: { url: 'http://127.0.0.1:9/hook', events: ['*'] } });
  t.is(sub.status, 200, sub.text);
  const form = await svc.request('POST', '/v2/forms', {
    token: aKey,
    json: { name: 'F', owner: { type: 'agency', agency_id: a.agencyId }, insurance_line: 'renters' },
    headers: { 'Idempotency-Key': crypto.randomUUID() },
  });
  t.is(form.status, 201, form.text);

  const invalid = { not_a_field: ['nonsense'], name: 42, first_name: '', steps: 'x', agent_id: 'x', url: 'ftp://x' };
  const cases: Array<[string, string, string]> = [
    ['PATCH', `/v1/agencies/${a.agencyId}`, b.ownerToken],
    ['POST', `/v1/agencies/${a.agencyId}/agents`, theirs.token],
    ['PATCH', `/v1/agencies/${a.agencyId}/agents/${a.ownerId}`, b.ownerToken],
    ['POST', `/v1/agencies/${a.agencyId}/api-keys`, b.ownerToken],
    ['POST', `/v1/agencies/${a.agencyId}/api-keys/${keyId}/roll`, b.ownerToken],
    ['PUT', `/v1/agencies/${a.agencyId}/plan`, theirs.token],
    ['PATCH', `/v1/agents/${a.ownerId}/clients/${client.body.data.uuid ?? client.body.data.id}`, b.ownerToken],
    ['POST', `/v1/agents/${a.ownerId}/clients/${client.body.data.uuid ?? client.body.data.id}/reassign`, b.ownerToken],
    ['PATCH', `/v1/agents/${a.ownerId}/additional-questions`, b.ownerToken],
    ['PATCH', `/v1/webhooks/${sub.body.data.uuid ?? sub.body.data.id}`, b.ownerToken],
    ['PATCH', `/v2/forms/${form.body.id}`, bKey],
    ['POST', `/v2/forms/${form.body.id}/links`, bKey],
  ];
  const answered: string[] = [];
  for (const [method, path, token] of cases) {
    const r = await svc.request(method, path, { token, json: invalid, headers: { 'Idempotency-Key': crypto.randomUUID() } });
    if (r.status !== 404 && r.status !== 403) answered.push(`${method} ${path}: ${r.status} ${r.text.slice(0, 200)}`);
  }
  t.deepEqual(answered, []);
});
