import test from 'ava';
import { startService, type TestService } from '../helpers/server.ts';

let svc: TestService;
test.before(async () => {
  // A long window and a small limit make the test independent of wall-clock boundaries.
  svc = await startService({ RATE_LIMIT_V1_PER_WINDOW: '3', RATE_LIMIT_WINDOW_SECONDS: '86400' });
});
test.after.always(async () => svc?.close());

test('each token gets its own v1 budget with X-RateLimit headers on every response and Retry-After on 429', async (t) => {
  const c = await svc.oauthClient();
  const a = await svc.agency(c.token); // the agency creation spends one of the client's three
  const seen: Array<[number, string | null]> = [];
  for (let i = 0; i < 3; i++) {
    const r = await svc.request('GET', `/v1/agencies/${a.agencyId}`, { token: a.ownerToken });
    seen.push([r.status, r.headers.get('x-ratelimit-remaining')]);
    t.is(r.headers.get('x-ratelimit-limit'), '3');
    const reset = Number(r.headers.get('x-ratelimit-reset'));
    t.true(reset > Date.now() / 1000 && reset <= Date.now() / 1000 + 86400);
  }
  t.deepEqual(seen, [
    [200, '2'],
    [200, '1'],
    [200, '0'],
  ]);
  const limited = await svc.request('GET', `/v1/agencies/${a.agencyId}`, { token: a.ownerToken });
  t.is(limited.status, 429);
  t.is(limited.headers.get('x-ratelimit-remaining'), '0');
  t.true(Number(limited.headers.get('retry-after')) >= 1);
  t.is(limited.body.error.message, 'rate limit exceeded');
  // The OAuth client's own token has its own budget.
  const list = await svc.request('GET', '/v1/agents', { token: c.token });
  t.is(list.status, 200);
  t.is(list.headers.get('x-ratelimit-remaining'), '1');
});

test('counters live in Postgres, so a second server process on the same database shares them', async (t) => {
  const c = await svc.oauthClient('shared');
  for (let i = 0; i < 3; i++) await svc.request('GET', '/v1/agents', { token: c.token });
  const { rows } = await svc.tdb.db.owner.query(`select sum(hits)::int as hits from app_private.rate_limit_counters where bucket like 'v1:%'`);
  t.true(rows[0].hits >= 3);
  t.is((await svc.request('GET', '/v1/agents', { token: c.token })).status, 429);
});
