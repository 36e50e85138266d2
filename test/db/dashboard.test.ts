// SQL of dashboard sign-in links and sessions (0011), called as the request role: a link opens one session
// once and only before it expires; a session lives while used within the idle window and its agent is
// active; a token reset ends it; purge forgets what is long dead.
import test from 'ava';
import { withIdentity } from '../../db/pool.ts';
import { hashToken } from '../../lib/secrets.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { seedAgent, sqlError, twoAgencies, type SeededAgency } from '../helpers/seed.ts';

let tdb: TestDatabase, a: SeededAgency, other: SeededAgency;
test.before(async () => {
  ({ tdb, a, b: other } = await twoAgencies('dash'));
});
test.after.always(async () => tdb?.drop());

const system = { role: 'system' as const };
let n = 0;
async function link(agentId: number, who = a.client, ttl = 300): Promise<Buffer> {
  const h = hashToken(`link-${++n}`);
  await withIdentity(tdb.db, who, (c) => c.query('select app_public.create_dashboard_link($1, $2, $3)', [agentId, h, ttl]));
  return h;
}
const start = (linkHash: Buffer, sessionHash: Buffer) =>
  withIdentity(tdb.db, system, (c) =>
    c.query<{ agent_id: number }>('select agent_id from app_private.start_dashboard_session($1, $2)', [linkHash, sessionHash]),
  ).then((r) => r.rows[0]?.agent_id);
const who = (sessionHash: Buffer, idle = 3600) =>
  withIdentity(tdb.db, system, (c) => c.query('select * from app_private.authenticate_dashboard_session($1, $2)', [sessionHash, idle])).then((r) => r.rows[0]);

test('a link opens one session, once; the session acts as its agent with its role', async (t) => {
  const l = await link(a.ownerId);
  const s1 = hashToken(`s-${++n}`);
  t.is(await start(l, s1), a.ownerId);
  t.falsy(await start(l, hashToken(`s-${++n}`)), 'used');
  const row = await who(s1);
  t.like(row, { agent_id: a.ownerId, agency_id: a.agencyId, role: 'owner' });
});

test('only the linked OAuth client asks for links; expired links and idle sessions are refused', async (t) => {
  t.is((await sqlError(link(a.ownerId, other.client))).code, 'NTFND');
  const agent = await seedAgent(tdb, a, 'dash-plain');
  t.is((await sqlError(link(a.ownerId, { role: 'agent', agencyId: a.agencyId, agentId: agent }))).code, 'FORBD');
  const l = await link(a.ownerId);
  await tdb.db.owner.query(`update app_private.dashboard_links set expires_at = now() - interval '1 second' where token_hash = $1`, [l]);
  t.falsy(await start(l, hashToken(`s-${++n}`)), 'expired');
  const s = hashToken(`s-${++n}`);
  await start(await link(a.ownerId), s);
  await tdb.db.owner.query(`update app_private.dashboard_sessions set last_seen_at = now() - interval '61 seconds' where id_hash = $1`, [s]);
  t.truthy(await who(s, 120), 'used within the window');
  await tdb.db.owner.query(`update app_private.dashboard_sessions set last_seen_at = now() - interval '121 seconds' where id_hash = $1`, [s]);
  t.falsy(await who(s, 120), 'idle too long');
});

test('a token reset and deactivation end sessions; sign-out ends one; purge forgets old rows', async (t) => {
  const agent = await seedAgent(tdb, a, 'dash-reset');
  const s = hashToken(`s-${++n}`);
  await start(await link(agent), s);
  t.truthy(await who(s));
  await withIdentity(tdb.db, a.client, (c) => c.query('select app_public.reset_agent_token($1, $2)', [agent, hashToken('new-token')]));
  t.falsy(await who(s), 'reset');
  const s2 = hashToken(`s-${++n}`);
  await start(await link(agent), s2);
  await withIdentity(tdb.db, a.client, (c) => c.query('select app_public.deactivate_agent($1)', [agent]));
  t.falsy(await who(s2), 'deactivated');
  t.is((await sqlError(link(agent))).code, 'DEACT');
  const s3 = hashToken(`s-${++n}`);
  await start(await link(a.ownerId), s3);
  await withIdentity(tdb.db, system, (c) => c.query('select app_private.end_dashboard_session($1)', [s3]));
  t.falsy(await who(s3), 'signed out');
  await tdb.db.owner.query(`update app_private.dashboard_sessions set ended_at = now() - interval '31 days' where id_hash = $1`, [s3]);
  await tdb.db.owner.query('select app_private.purge_dashboard_sessions()');
  t.is((await tdb.db.owner.query('select count(*)::int n from app_private.dashboard_sessions where id_hash = $1', [s3])).rows[0].n, 0);
  // The request role reads neither table directly.
  t.is((await sqlError(withIdentity(tdb.db, a.owner, (c) => c.query('select * from app_private.dashboard_sessions')))).code, '42501');
});

test('usage (0012): requests served this minute and today and refusals are counted per agency; only its admins read them', async (t) => {
  const key = `svc_test_usage${++n}abcdefgh`;
  await withIdentity(tdb.db, a.owner, (c) =>
    c.query(`select app_public.create_api_key($1, 'usage', 'test', 'admin', $2, 'svc_test_usa', 'efgh')`, [a.agencyId, hashToken(key)]),
  );
  // Free plan: 5 a minute; seven requests, two refused.
  const allowed: boolean[] = [];
  for (let i = 0; i < 7; i++)
    allowed.push(
      (
        await tdb.db.owner.query<{ allowed: boolean }>('select allowed from app_private.authenticate_api_request($1, $2, 100, 60)', [
          hashToken(key),
          '10.0.0.1',
        ])
      ).rows[0].allowed,
    );
  t.deepEqual(allowed, [true, true, true, true, true, false, false]);
  const usage = (who: Parameters<typeof withIdentity>[1]) =>
    withIdentity(tdb.db, who, (c) => c.query('select * from app_private.agency_api_usage() where plan is not null')).then((r) => r.rows);
  const [u] = await usage({ ...a.owner, mode: 'live' });
  t.like(u, { plan: 'free', per_minute: 5, per_day: 50, minute_requests: 5, day_requests: 5, rejected_today: 2 });
  t.true(u.minute_resets_at > new Date() && u.day_resets_at > u.minute_resets_at);
  const [theirs] = await usage(other.owner);
  t.like(theirs, { minute_requests: 0, day_requests: 0, rejected_today: 0 }, 'another agency sees its own counters');
  const agentId = await seedAgent(tdb, a, 'usage-agent');
  t.deepEqual(await usage({ role: 'agent', agencyId: a.agencyId, agentId }), [], 'a plain agent reads nothing');
});
