// v1 webhook subscriptions as a resource: an agency has at most 100 (the list is returned whole and each event
// fans out to every matching one), refused in the v1 error shape with the field named.
import test from 'ava';
import { fileService } from '../helpers/server.ts';

const svc = fileService({ WEBHOOK_ALLOW_HOSTS: '127.0.0.1' });

test('an agency has at most 100 subscriptions: the 101st is 422 naming the url, and one deleted makes room', async (t) => {
  const c = await svc.oauthClient();
  const a = await svc.agency(c.token);
  const b = await svc.agency(c.token);
  const create = (token: string, n: number) =>
    svc.request('POST', '/v1/webhooks', { token, json: { url: `http://127.0.0.1:9/hooks/${n}`, events: ['client.updated'] } });
  const first = await create(a.ownerToken, 0);
  t.is(first.status, 200, first.text);
  // 98 more, written as the state function writes them (99 HTTP calls would only test the rate limit).
  await svc.tdb.db.owner.query(
    `insert into app_public.webhook_endpoints (agency_id, kind, url, events, secret_ciphertext, created_by_agent_id)
     select agency_id, kind, url || '-' || g, events, secret_ciphertext, created_by_agent_id
       from app_public.webhook_endpoints, generate_series(1, 98) g where id = $1`,
    [first.body.data.uuid],
  );
  const hundredth = await create(a.ownerToken, 100);
  t.is(hundredth.status, 200, hundredth.text);
  const over = await create(a.ownerToken, 101);
  t.is(over.status, 422, over.text);
  t.regex(over.body.error.message, /at most 100 webhook subscriptions/);
  t.is(over.body.error.details[0].field, 'url');
  const list = await svc.request('GET', '/v1/webhooks', { token: a.ownerToken });
  t.is(list.body.data.length, 100);
  t.is((await create(b.ownerToken, 1)).status, 200, 'another agency has its own 100');
  t.is((await svc.request('DELETE', `/v1/webhooks/${hundredth.body.data.uuid}`, { token: a.ownerToken })).status, 204);
  t.is((await create(a.ownerToken, 102)).status, 200, 'a deleted subscription makes room');
});
