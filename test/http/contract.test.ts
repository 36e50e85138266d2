// The schema-vs-response check itself (test/helpers/contract.ts): every test service checks the answers its
// tests received against /openapi.json when it closes; here, that the check refuses what it must.
import test from 'ava';
import { contractChecker } from '../helpers/contract.ts';
import { fileService } from '../helpers/server.ts';

const svc = fileService();

test('real answers match the document; an extra key, a wrong type or an undocumented status does not', async (t) => {
  const c = await svc.oauthClient();
  const a = await svc.agency(c.token);
  const check = contractChecker((await svc.request('GET', '/openapi.json')).body);
  const agency = await svc.request('GET', `/v1/agencies/${a.agencyId}`, { token: a.ownerToken });
  const answer = {
    method: 'GET',
    path: `/v1/agencies/${a.agencyId}`,
    status: agency.status,
    contentType: agency.headers.get('content-type'),
    body: agency.body,
  };
  t.is(check(answer), undefined);
  t.regex(check({ ...answer, body: { data: { ...agency.body.data, surprise: true } } }) ?? '', /must NOT have additional properties/);
  t.regex(check({ ...answer, body: { data: { ...agency.body.data, color_code: null } } }) ?? '', /color_code must be string/);
  t.regex(check({ ...answer, status: 418 }) ?? '', /status not documented/);
  const missing = await svc.request('GET', '/v2/forms/999999', { token: await svc.apiKey(a.ownerToken, a.agencyId) });
  const problem = { method: 'GET', path: '/v2/forms/999999', status: 404, contentType: missing.headers.get('content-type'), body: missing.body };
  t.is(check(problem), undefined);
  t.regex(check({ ...problem, body: { ...missing.body, stack: 'at …' } }) ?? '', /additional properties/);
  // Every answer this file received so far matches (the same check runs for every test file when its service closes).
  t.deepEqual(await svc.contractMismatches(), []);
  t.true(svc.answers.length >= 4);
});
