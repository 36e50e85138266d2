// The cross-tenant matrix, walked from the OpenAPI document so routes added later are covered without
// anyone listing them: every operation × agency A's ids called with agency B's credentials, and every /v2
// operation × A's test-mode ids called with A's live key. Nothing of A may come back, and nothing of A may
// change.
import test from 'ava';
import { startService, type TestService } from '../helpers/server.ts';

let svc: TestService;

interface Operation {
  operationId?: string;
  security?: Array<Record<string, unknown>>;
}

test.before(async () => {
  svc = await startService({ RATE_LIMIT_V1_PER_WINDOW: '100000', RATE_LIMIT_TOKEN_PER_WINDOW: '100000', WEBHOOK_ALLOW_HOSTS: '127.0.0.1' });
});
test.after.always(async () => svc?.close());

const idem = () => ({ 'Idempotency-Key': crypto.randomUUID() });

/** An agency with one of everything, each carrying a marker string that must never reach another tenant. */
async function tenant(tag: string) {
  const oauth = await svc.oauthClient(`Partner ${tag}`);
  const a = await svc.agency(oauth.token, `Agency ${tag} marker-${tag}-agency`);
  const agent = (
    await svc.request('POST', `/v1/agencies/${a.agencyId}/agents`, {
      token: oauth.token,
      json: { first_name: 'Ann', last_name: `marker-${tag}-agent`, email: `marker-${tag}@example.com` },
    })
  ).body.data;
  const test = await svc.apiKey(a.ownerToken, a.agencyId, 'test');
  const live = await svc.apiKey(a.ownerToken, a.agencyId, 'live');
  const keys = (await svc.request('GET', `/v1/agencies/${a.agencyId}/api-keys`, { token: a.ownerToken })).body.data as Array<{ id: number; mode: string }>;
  const newForm = async (token: string, name: string) =>
    (
      await svc.request('POST', '/v2/forms', {
        token,
        headers: idem(),
        json: { name, owner: { type: 'agency', agency_id: a.agencyId }, insurance_line: 'personal_auto' },
      })
    ).body;
  const form = await newForm(test, `marker-${tag}-testform`);
  const liveForm = await newForm(live, `marker-${tag}-liveform`);
  const sub = (
    await svc.request('POST', '/v1/webhooks', {
      token: a.ownerToken,
      json: { url: `http://127.0.0.1:9/marker-${tag}-sub`, events: ['*'], description: `marker-${tag}-sub` },
    })
  ).body.data;
  await svc.request('PUT', '/v2/webhook-endpoints/form-submission', {
    token: live,
    json: { staging_url: `http://127.0.0.1:9/marker-${tag}-staging`, production_url: `http://127.0.0.1:9/marker-${tag}-production` },
  });
  const testDelivery = (await svc.request('POST', '/v2/webhook-endpoints/form-submission/test', { token: test, headers: idem() })).body;
  const subDelivery = (await svc.request('POST', `/v1/webhooks/${sub.uuid}/test`, { token: a.ownerToken })).body.data;
  const client = (
    await svc.request('POST', '/v1/client', {
      token: a.ownerToken,
      json: { first_name: 'Cleo', last_name: `marker-${tag}-client`, email: `client-${tag}@example.com` },
    })
  ).body.data;
  return {
    ...a,
    oauth: oauth.token,
    agentId: agent.id as number,
    test,
    live,
    keyIds: keys.map((k) => k.id),
    formId: form.id as number,
    liveFormId: liveForm.id as number,
    subUuid: sub.uuid as string,
    clientUuid: client.uuid as string,
    deliveryIds: [testDelivery.id as number, subDelivery.id as number],
    markers: [`marker-${tag}-`],
  };
}

/** A's ids a path parameter may take: the known names exactly, any other name every id of A of its shape. */
function candidates(name: string, a: Awaited<ReturnType<typeof tenant>>): string[] {
  const known: Record<string, Array<string | number>> = {
    agency_id: [a.agencyId],
    agent_id: [a.agentId, a.ownerId],
    key_id: a.keyIds,
    id: [a.formId, a.liveFormId],
    webhook_uuid: [a.subUuid],
    client_uuid: [a.clientUuid],
    delivery_id: a.deliveryIds,
    topic: ['form-submission'],
  };
  const all = [a.agencyId, a.agentId, a.ownerId, a.formId, a.liveFormId, ...a.keyIds, ...a.deliveryIds, a.subUuid, a.clientUuid];
  return (known[name] ?? (name.endsWith('uuid') ? [a.subUuid] : all)).map(String);
}

function expand(path: string, a: Awaited<ReturnType<typeof tenant>>): string[] {
  let out = [path];
  for (const [, name] of path.matchAll(/\{([^}]+)\}/g)) out = out.flatMap((p) => candidates(name, a).map((v) => p.replace(`{${name}}`, encodeURIComponent(v))));
  return out;
}

// Plausible bodies, so a write is refused for being someone else's and not merely for being malformed.
const sampleBodies: Record<string, unknown> = {
  updateAgency: { name: 'Taken over' },
  updateAgent: { first_name: 'Taken', is_admin: true },
  createAgent: { first_name: 'In', last_name: 'Truder', email: 'intruder@example.com' },
  createApiKey: { name: 'intruder', mode: 'live', permissions: 'admin' },
  rollApiKey: {},
  setAgencyPlan: { plan: 'pro' },
  updateWebhookSubscription: { url: 'https://evil.example.com/x', enabled: false },
  updateForm: { steps: [] },
  putWebhookEndpoint: { staging_url: 'https://evil.example.com/x' },
};

test('no operation lets agency B (or A’s other mode) read or change agency A’s data', async (t) => {
  const a = await tenant('a');
  const b = await tenant('b');
  const doc = (await svc.request('GET', '/openapi.json')).body as { paths: Record<string, Record<string, Operation>> };
  const seen: string[] = [];
  const leaks: string[] = [];
  const calls: Array<{ method: string; path: string; token: string; opId: string; markers: string[]; why: string; specific: boolean }> = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const scheme = Object.keys(op.security?.[0] ?? {})[0];
      if (!scheme) continue; // public by design (token exchange, signed links, logos)
      const opId = op.operationId ?? `${method} ${path}`;
      // The /api surface takes its key in X-API-Key or as a bearer token; the test client sends a bearer.
      const other = { oauthClientToken: b.oauth, agentToken: b.ownerToken, apiKey: b.test, apiKeyHeader: b.test }[scheme];
      if (!other) {
        leaks.push(`${opId}: unknown security scheme ${scheme}; teach this test its credential`);
        continue;
      }
      // A path naming one of A's resources (a topic is no one's own) must never succeed for B.
      const specific = [...path.matchAll(/\{([^}]+)\}/g)].some(([, name]) => name !== 'topic');
      for (const p of expand(path, a)) calls.push({ method, path: p, token: other, opId, markers: a.markers, why: 'another agency', specific });
      // /v2 in the other mode: A's live key against A's test-mode ids (and the reverse for forms).
      // (A PUT of the shared topic endpoint by A's own keys is A's to make: the trigger test covers its fields.)
      if (path.startsWith('/v2/') && scheme === 'apiKey' && method !== 'put') {
        for (const p of expand(path, a))
          calls.push({ method, path: p, token: a.live, opId, markers: ['marker-a-testform'], why: 'the live key on test data', specific: false });
        for (const p of expand(path, a))
          calls.push({
            method,
            path: p,
            token: a.test,
            opId,
            markers: ['marker-a-liveform', 'marker-a-production'],
            why: 'the test key on live data',
            specific: false,
          });
      }
      seen.push(opId);
    }
  }
  t.true(seen.length >= 25, `the document lists the authenticated operations (${seen.length})`);
  // Reads first, writes after, deletes last: a wrongly allowed delete must not hide a later leak.
  const rank = (m: string) => ['get', 'put', 'patch', 'post', 'delete'].indexOf(m);
  calls.sort((x, y) => rank(x.method) - rank(y.method));
  for (const c of calls) {
    const r = await svc.request(c.method.toUpperCase(), c.path, {
      token: c.token,
      ...(c.method === 'get' || c.method === 'delete' ? {} : { json: sampleBodies[c.opId] ?? {} }),
      headers: idem(),
    });
    const leaked = c.markers.find((m) => r.text.includes(m));
    if (leaked) leaks.push(`${c.method.toUpperCase()} ${c.path} (${c.why}) → ${r.status} shows ${leaked}`);
    else if (c.specific && r.status >= 200 && r.status < 300)
      leaks.push(`${c.method.toUpperCase()} ${c.path} (${c.why}) → ${r.status}: ${r.text.slice(0, 120)}`);
    if (r.status >= 500) leaks.push(`${c.method.toUpperCase()} ${c.path} (${c.why}) → ${r.status}`);
  }
  t.deepEqual(leaks, []);

  // Nothing of A changed.
  const own = (p: string, token = a.ownerToken) => svc.request('GET', p, { token });
  const agency = await own(`/v1/agencies/${a.agencyId}`);
  t.is(agency.status, 200, 'A’s owner token still works: the agency was not deactivated and the token not reset');
  t.regex(agency.body.data.name, /marker-a-agency/);
  t.is((await own(`/v1/agencies/${a.agencyId}/agents/${a.agentId}`)).body.data.last_name, 'marker-a-agent');
  t.regex((await own(`/v1/webhooks/${a.subUuid}`)).body.data.url, /marker-a-sub/);
  t.true((await own(`/v1/webhooks/${a.subUuid}`)).body.data.enabled);
  const keys = (await own(`/v1/agencies/${a.agencyId}/api-keys`)).body.data as Array<{ status: string }>;
  t.is(keys.length, 2, 'no key was added or rolled');
  t.true(keys.every((k) => k.status === 'active'));
  t.is((await own(`/v2/forms/${a.formId}`, a.test)).body.name, 'marker-a-testform');
  t.is((await own(`/v2/forms/${a.liveFormId}`, a.live)).body.name, 'marker-a-liveform');
  const ep = (await own('/v2/webhook-endpoints', a.live)).body.data[0];
  t.regex(ep.staging_url, /marker-a-staging/);
  t.regex(ep.production_url, /marker-a-production/);
  t.true(ep.enabled);
});
