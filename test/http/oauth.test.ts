import test from 'ava';
import { createOAuthClient } from '../../db/queries/oauth.ts';
import { hashToken } from '../../lib/secrets.ts';
import { startService, type TestService } from '../helpers/server.ts';

let svc: TestService;
test.before(async () => {
  // A day-long window: the fixed window cannot roll over in the middle of a test.
  svc = await startService({ RATE_LIMIT_TOKEN_PER_WINDOW: '10', RATE_LIMIT_WINDOW_SECONDS: '86400' });
});
test.after.always(async () => svc?.close());

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

test('issues a bearer token from credentials in a JSON body', async (t) => {
  const c = await createOAuthClient(svc.tdb.db.owner, 'json');
  const r = await svc.request('POST', '/oauth/token', { json: { grant_type: 'client_credentials', client_id: c.client_id, client_secret: c.client_secret } });
  t.is(r.status, 200);
  t.is(r.body.token_type, 'bearer');
  t.is(r.body.expires_in, 3600);
  t.regex(r.body.access_token, /^oat_[A-Za-z0-9_-]{43}$/);
  t.is(r.body.refresh_token, undefined);
  t.is(r.headers.get('cache-control'), 'no-store');
  t.is(r.headers.get('x-ratelimit-limit'), '10');
  const agents = await svc.request('GET', '/v1/agents', { token: r.body.access_token });
  t.is(agents.status, 200);
});

test('accepts a form-encoded body and HTTP Basic client authentication', async (t) => {
  const c = await createOAuthClient(svc.tdb.db.owner, 'basic');
  const form = await svc.request('POST', '/oauth/token', {
    form: new URLSearchParams({ grant_type: 'client_credentials', client_id: c.client_id, client_secret: c.client_secret }),
  });
  t.is(form.status, 200);
  const viaBasic = await svc.request('POST', '/oauth/token', {
    form: new URLSearchParams({ grant_type: 'client_credentials' }),
    headers: { authorization: basic(c.client_id, c.client_secret) },
  });
  t.is(viaBasic.status, 200);
  t.not(viaBasic.body.access_token, form.body.access_token);
});

test('a wrong secret is invalid_client 401, with WWW-Authenticate only when Basic was used', async (t) => {
  const c = await createOAuthClient(svc.tdb.db.owner, 'wrong');
  const body = await svc.request('POST', '/oauth/token', { json: { grant_type: 'client_credentials', client_id: c.client_id, client_secret: 'nope' } });
  t.is(body.status, 401);
  t.deepEqual(body.body, { error: 'invalid_client', error_description: 'client authentication failed' });
  t.is(body.headers.get('www-authenticate'), null);
  const viaBasic = await svc.request('POST', '/oauth/token', {
    json: { grant_type: 'client_credentials' },
    headers: { authorization: basic(c.client_id, 'nope') },
  });
  t.is(viaBasic.status, 401);
  t.is(viaBasic.body.error, 'invalid_client');
  t.regex(viaBasic.headers.get('www-authenticate') ?? '', /^Basic/);
  const unknown = await svc.request('POST', '/oauth/token', { json: { grant_type: 'client_credentials', client_id: 'oc_unknown', client_secret: 'x' } });
  t.is(unknown.status, 401);
});

test('grant types other than client_credentials are unsupported_grant_type 400', async (t) => {
  const c = await createOAuthClient(svc.tdb.db.owner, 'grant');
  const r = await svc.request('POST', '/oauth/token', { json: { grant_type: 'password', client_id: c.client_id, client_secret: c.client_secret } });
  t.is(r.status, 400);
  t.is(r.body.error, 'unsupported_grant_type');
  t.is(r.headers.get('cache-control'), 'no-store');
});

test('missing fields, both auth methods at once and malformed bodies are invalid_request 400', async (t) => {
  const c = await createOAuthClient(svc.tdb.db.owner, 'bad');
  const noGrant = await svc.request('POST', '/oauth/token', { json: { client_id: c.client_id, client_secret: c.client_secret } });
  t.is(noGrant.status, 400);
  t.is(noGrant.body.error, 'invalid_request');
  const noSecret = await svc.request('POST', '/oauth/token', { json: { grant_type: 'client_credentials', client_id: c.client_id } });
  t.is(noSecret.body.error, 'invalid_request');
  const both = await svc.request('POST', '/oauth/token', {
    json: { grant_type: 'client_credentials', client_id: c.client_id, client_secret: c.client_secret },
    headers: { authorization: basic(c.client_id, c.client_secret) },
  });
  t.is(both.status, 400);
  t.is(both.body.error, 'invalid_request');
  const broken = await svc.request('POST', '/oauth/token', { json: '{"grant_type":' });
  t.is(broken.status, 400);
  t.is(broken.body.error, 'invalid_request');
});

test('an expired token is refused with 401', async (t) => {
  const c = await svc.oauthClient('expiry');
  t.is((await svc.request('GET', '/v1/agents', { token: c.token })).status, 200);
  // This test's token only: the other tests of the file run meanwhile with tokens of their own.
  await svc.tdb.db.owner.query(`update app_private.oauth_access_tokens set expires_at = now() - interval '1 second' where token_hash = $1`, [
    hashToken(c.token),
  ]);
  const r = await svc.request('GET', '/v1/agents', { token: c.token });
  t.is(r.status, 401);
  t.truthy(r.body.error.message);
});

test('a client gets at most 10 token requests per window, then 429 with Retry-After', async (t) => {
  const c = await createOAuthClient(svc.tdb.db.owner, 'limited');
  const form = () =>
    svc.request('POST', '/oauth/token', { json: { grant_type: 'client_credentials', client_id: c.client_id, client_secret: c.client_secret } });
  const statuses: number[] = [];
  for (let i = 0; i < 10; i++) statuses.push((await form()).status);
  t.deepEqual(statuses, Array(10).fill(200));
  const last = await form();
  t.is(last.status, 429);
  t.is(last.body.error, 'rate_limited');
  t.true(Number(last.headers.get('retry-after')) >= 1);
  t.is(last.headers.get('x-ratelimit-remaining'), '0');
  t.is(last.headers.get('x-ratelimit-limit'), '10');
});

test('tokens are stored only as hashes', async (t) => {
  const c = await svc.oauthClient('hashes');
  const { rows } = await svc.tdb.db.owner.query(`select encode(token_hash, 'hex') h from app_private.oauth_access_tokens`);
  t.false(rows.some((r) => r.h.includes(Buffer.from(c.token).toString('hex'))));
  const secrets = await svc.tdb.db.owner.query(`select * from app_private.oauth_clients where client_id = $1`, [c.client_id]);
  t.false(JSON.stringify(secrets.rows).includes(c.client_secret));
});
