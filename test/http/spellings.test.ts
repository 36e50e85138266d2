// The last spellings (issue 28): a number in a query string or a dashboard path is decimal digits or a 400, as
// path ids already are; a webhook URL is stored in its one canonical spelling or refused; NUL in a signed link's
// metadata is refused when the link is made, not when each consumer submits.
import test from 'ava';
import { publishedForm } from '../helpers/hosted.ts';
import { signInCookie } from '../helpers/dashboard.ts';
import { startService, type TestService } from '../helpers/server.ts';

let svc: TestService;
let a: { agencyId: number; ownerId: number; ownerToken: string; slug: string };
let oauth: string;
let key: string;
test.before(async () => {
  svc = await startService({ WEBHOOK_ALLOW_HOSTS: '127.0.0.1,localhost' });
  oauth = (await svc.oauthClient()).token;
  a = await svc.agency(oauth);
  key = await svc.apiKey(a.ownerToken, a.agencyId, 'live');
  const plan = await svc.request('PUT', `/v1/agencies/${a.agencyId}/plan`, { token: oauth, json: { plan: 'enterprise', per_minute: 1000, per_day: 10_000 } });
  if (plan.status !== 200) throw new Error(plan.text);
});
test.after.always(async () => svc?.close());

const SPELLINGS = ['0x10', '7.0', '+7', '7e0', ' 7', '07', '-1', ''];

test('a number in a query string is decimal digits or a 400 in the surface’s error shape', async (t) => {
  const sub = await svc.request('POST', '/v1/webhooks', { token: a.ownerToken, json: { url: 'https://hooks.example.com/h', events: ['client.updated'] } });
  t.is(sub.status, 200, sub.text);
  const lists: Array<[string, string, Record<string, string>]> = [
    ['/v2/forms', 'limit', { token: key }],
    ['/v2/webhook-endpoints/form-submission/deliveries', 'limit', { token: key }],
    [`/api/v1/${a.ownerId}/policy/extractions`, 'limit', { 'x-api-key': key }],
    ['/v1/agents', 'perPage', { token: oauth }],
    ['/v1/agents', 'page', { token: oauth }],
    [`/v1/agents/${a.ownerId}/clients`, 'perPage', { token: a.ownerToken }],
    [`/v1/webhooks/${sub.body.data.uuid}/deliveries`, 'limit', { token: a.ownerToken }],
  ];
  for (const [path, param, auth] of lists) {
    const opts = auth.token ? { token: auth.token } : { headers: auth };
    const ok = await svc.request('GET', `${path}?${param}=16`, opts);
    t.not(ok.status, 400, `${path}?${param}=16: ${ok.text.slice(0, 200)}`);
    t.true(ok.status < 300 || ok.status === 404, `${path}?${param}=16: ${ok.status} ${ok.text.slice(0, 200)}`);
    for (const spelled of SPELLINGS) {
      const r = await svc.request('GET', `${path}?${param}=${encodeURIComponent(spelled)}`, opts);
      t.is(r.status, 400, `${path}?${param}=${JSON.stringify(spelled)}: ${r.text.slice(0, 200)}`);
    }
  }
});

test('a number in a dashboard path or query is decimal digits or a 400 page', async (t) => {
  const cookie = await signInCookie(t, svc, oauth, a.ownerId);
  t.truthy(cookie);
  const testKey = await svc.apiKey(a.ownerToken, a.agencyId, 'test');
  const form = await publishedForm(svc, testKey, a.agencyId);
  const page = (p: string) => fetch(svc.url + p, { headers: { cookie }, redirect: 'manual' });
  t.is((await page(`/dashboard/test/forms/${form.id}`)).status, 200);
  for (const spelled of ['0x' + form.id.toString(16), `${form.id}.0`, `+${form.id}`, `${form.id}e0`, `0${form.id}`, ` ${form.id}`]) {
    const r = await page(`/dashboard/test/forms/${encodeURIComponent(spelled)}`);
    t.is(r.status, 400, `forms/${JSON.stringify(spelled)}`);
    t.regex(r.headers.get('content-type') ?? '', /text\/html/);
  }
  for (const q of ['before=0x10', 'before=7e0', 'form_id=0x7', 'form_id=%2B7']) {
    const path = q.startsWith('form_id') ? '/dashboard/test/submissions' : '/dashboard/test/forms';
    t.is((await page(`${path}?${q}`)).status, 400, `${path}?${q}`);
  }
});

test('webhook URLs are stored in their canonical spelling, or refused naming the field', async (t) => {
  const put = (url: string) => svc.request('PUT', '/v2/webhook-endpoints/form-submission', { token: key, json: { staging_url: url } });
  const canonical: Array<[string, string]> = [
    ['http://LOCALHOST.:8080/h', 'http://localhost:8080/h'],
    ['https://hooks．example．com/h', 'https://hooks.example.com/h'],
    ['https://hooks。example.com/h', 'https://hooks.example.com/h'],
    ['https://Hooks.Example.com./h#frag', 'https://hooks.example.com/h'],
  ];
  for (const [given, stored] of canonical) {
    const r = await put(given);
    t.true(r.status === 200 || r.status === 201, `${given}: ${r.text}`);
    t.is(r.body.staging_url, stored, given);
    const { rows } = await svc.tdb.db.owner.query(`select staging_url from app_public.webhook_endpoints where agency_id = $1 and topic = 'form-submission'`, [
      a.agencyId,
    ]);
    t.is(rows[0].staging_url, stored, `${given} as stored`);
  }
  for (const refused of [
    'https://a..b/',
    'https://-a-.example/',
    'https:\\\\a.example',
    'https:\\\\a.example\\h',
    'https://a.example/%',
    'https://a.example/%zz',
    'https://a.exa\tmple/',
    'https://a_b.example/',
  ]) {
    const r = await put(refused);
    t.is(r.status, 422, `${JSON.stringify(refused)}: ${r.text}`);
    t.is(r.body.errors?.[0]?.pointer, '/staging_url', refused);
  }
  const v1 = await svc.request('POST', '/v1/webhooks', { token: a.ownerToken, json: { url: 'http://LOCALHOST.:8080/v1', events: ['client.updated'] } });
  t.is(v1.status, 200, v1.text);
  t.is(v1.body.data.url, 'http://localhost:8080/v1');
  const v1Bad = await svc.request('POST', '/v1/webhooks', { token: a.ownerToken, json: { url: 'https://a..b/', events: ['client.updated'] } });
  t.is(v1Bad.status, 422);
  t.is(v1Bad.body.error.details[0].field, 'url');
});

test('NUL in a signed link’s metadata is refused when the link is made', async (t) => {
  const form = await publishedForm(svc, key, a.agencyId);
  const link = (metadata: unknown) =>
    svc.request('POST', `/v2/forms/${form.id}/links`, {
      token: key,
      json: { agent_id: a.ownerId, metadata },
      headers: { 'Idempotency-Key': crypto.randomUUID() },
    });
  for (const metadata of [{ crm_id: 'abc\u0000' }, { 'crm\u0000id': 'abc' }, { nested: { list: ['ok', 'x\u0000'] } }, { crm_id: 'half \ud800 pair' }]) {
    const r = await link(metadata);
    t.is(r.status, 422, `${JSON.stringify(metadata)}: ${r.text}`);
    t.is(r.body.errors?.[0]?.pointer, '/metadata');
  }
  t.is((await link({ crm_id: 'abc-123', note: 'literal \\u0000 text is fine' })).status, 201);
});
