// A read-only API key (sandbox or live) gets 403 on every write route the OpenAPI document lists, whichever
// way it presents the key: the rule is a property of the route declaration (http/route.ts `writes`), so a new
// route cannot forget it. Its reads still work.
import test from 'ava';
import { allRoutes } from '../../http/app.ts';
import { isWrite } from '../../http/route.ts';
import { fileService } from '../helpers/server.ts';

const svc = fileService();

type Operation = { operationId: string; security?: Array<Record<string, string[]>> };

test('a read-only key gets 403 on every write route of the OpenAPI document, sandbox and live, and nothing is written', async (t) => {
  const c = await svc.oauthClient();
  const a = await svc.agency(c.token);
  // The /api surface spends the plan's budget on every request, refused or not.
  const plan = await svc.request('PUT', `/v1/agencies/${a.agencyId}/plan`, { token: c.token, json: { plan: 'enterprise', per_minute: 1000, per_day: 10_000 } });
  t.is(plan.status, 200, plan.text);
  const keys = { test: await svc.apiKey(a.ownerToken, a.agencyId, 'test', 'read_only'), live: await svc.apiKey(a.ownerToken, a.agencyId, 'live', 'read_only') };
  const doc = (await svc.request('GET', '/openapi.json')).body as { paths: Record<string, Record<string, Operation>> };
  const known: Record<string, string> = { agent_id: String(a.ownerId), agency_id: String(a.agencyId), topic: 'form-submission' };
  const writes: string[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const schemes = (op.security ?? []).flatMap((s) => Object.keys(s));
      if (method === 'get' || schemes.length === 0) continue;
      writes.push(`${method} ${path}`);
      const url = path.replace(/\{([A-Za-z_]+)\}/g, (_, name: string) => known[name] ?? (name.includes('uuid') ? '00000000-0000-4000-8000-000000000001' : '1'));
      for (const [mode, key] of Object.entries(keys)) {
        const ways = schemes.includes('apiKeyHeader') ? [{ headers: { 'x-api-key': key } }, { token: key }] : [{ token: key }];
        for (const way of ways) {
          const r = await svc.request(method.toUpperCase(), url, {
            ...way,
            json: {},
            headers: { ...(way.headers ?? {}), 'idempotency-key': crypto.randomUUID() },
          });
          t.is(r.status, 403, `${method} ${path} with a ${mode} read-only key (${way.headers ? 'X-API-Key' : 'bearer'}): ${r.text.slice(0, 300)}`);
        }
      }
    }
  }
  // The document lists the writes the declarations make (every write route but the public token exchange).
  const declared = allRoutes.filter((r) => isWrite(r) && r.auth !== 'none').map((r) => `${r.method} ${r.path.replace(/:([A-Za-z_]+)/g, '{$1}')}`);
  t.deepEqual(writes.sort(), declared.sort());
  for (const w of ['post /api/analyze', 'post /api/v1/{agent_id}/policy/extract', 'put /v2/embed-origins', 'post /v2/forms']) t.true(writes.includes(w), w);
  const { rows } = await svc.tdb.db.owner.query('select count(*)::int n from app_public.documents where agency_id = $1', [a.agencyId]);
  t.is(rows[0].n, 0, 'no document was created');
  // Reads still work with the same keys.
  t.is((await svc.request('GET', '/v2/forms', { token: keys.test })).status, 200);
  t.is((await svc.request('GET', '/v2/forms', { token: keys.live })).status, 200);
});
