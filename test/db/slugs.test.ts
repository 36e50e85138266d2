// Agent slugs never collide with the service's own routes: hosted forms live at /{agent_slug}/form/…, so a
// slug such as "dashboard" or "api" would put an agent's forms under another part of the service.
import test from 'ava';
import { dashboardRoutes, allRoutes } from '../../http/app.ts';
import { hostedRoutes } from '../../http/routes/hosted/forms.ts';
import { hashToken } from '../../lib/secrets.ts';
import { isReservedSlug, RESERVED_SLUGS } from '../../lib/slug.ts';
import { testDatabase, type TestDatabase } from '../helpers/db.ts';
import { as, seedAgency } from '../helpers/seed.ts';

let tdb: TestDatabase;
test.before(async () => {
  tdb = await testDatabase();
});
test.after.always(async () => tdb?.drop());

/** Paths the app mounts outside the route declarations (app.ts, docs.ts, graphql.ts). */
const UNDECLARED = ['/openapi.json', '/docs', '/healthz', '/metrics', '/graphql', '/assets'];

test('every first path segment of the service is a reserved slug, in lib/slug.ts and in SQL alike', async (t) => {
  const firsts = new Set(
    [...allRoutes, ...dashboardRoutes, ...hostedRoutes]
      .map((r) => r.path)
      .concat(UNDECLARED)
      .map((p) => p.split('/')[1].replace(/\.json$/, ''))
      .filter((seg) => !seg.startsWith(':')),
  );
  t.true(firsts.has('dashboard') && firsts.has('v1') && firsts.has('api'), 'the routes are read');
  t.deepEqual(
    [...firsts].filter((seg) => !isReservedSlug(seg)),
    [],
    'add these route words to RESERVED_SLUGS (lib/slug.ts) and app_private.reserved_agent_slugs()',
  );
  const { rows } = await tdb.db.owner.query<{ s: string[] }>('select app_private.reserved_agent_slugs() as s');
  t.deepEqual([...rows[0].s].sort(), [...RESERVED_SLUGS].sort(), 'the SQL list is the same as lib/slug.ts');
});

test('an agent whose name makes a reserved slug gets a numbered one; other slugs are left as they are', async (t) => {
  const a = await seedAgency(tdb, 'slugs');
  const make = async (base: string, n: number) =>
    (
      await as(tdb, a.client, `select slug from app_public.create_agent($1, 'Dash', 'Board', $2, $3, null, false, null, $4)`, [
        a.agencyId,
        `slug-${n}@example.com`,
        base,
        hashToken(`slug-${n}`),
      ])
    ).rows[0].slug as string;
  t.is(await make('dashboard', 1), 'dashboard-2');
  t.is(await make('api', 2), 'api-2');
  t.is(await make('v1', 3), 'v1-2');
  t.is(await make('dashboard', 4), 'dashboard-3', 'still unique among agents');
  t.is(await make('dashboard-board', 5), 'dashboard-board', 'only whole route words are reserved');
  const { rows } = await tdb.db.owner.query('select slug from app_public.agents where slug = any($1)', [RESERVED_SLUGS]);
  t.deepEqual(rows, [], 'no agent holds a route word');
});
