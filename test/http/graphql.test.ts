// /graphql: PostGraphile over the operators' views, for operator and analyst tokens only, run as their
// roles, with depth, page and cost limits.
import test from 'ava';
import { createOperatorToken } from '../../db/queries/operators.ts';
import { hashToken, newToken } from '../../lib/secrets.ts';
import { startService, type TestService, agencyWithTestKey } from '../helpers/server.ts';

let svc: TestService;
let operator: string;
let analyst: string;

test.before(async () => {
  svc = await startService();
  operator = newToken('ops_', 32);
  analyst = newToken('ops_', 32);
  await createOperatorToken(svc.tdb.db.owner, 'Olga On-call', 'operator', hashToken(operator));
  await createOperatorToken(svc.tdb.db.owner, 'Ana Analyst', 'analyst', hashToken(analyst));
});
test.after.always(async () => svc?.close());

const gql = (token: string | undefined, query: string, variables?: Record<string, unknown>, headers?: Record<string, string>) =>
  svc.request('POST', '/graphql', { token, json: { query, variables }, headers });

test("an operator answers the views' questions in GraphQL, with the same rows as SQL", async (t) => {
  const o = svc.tdb.db.owner;
  await o.query(`select graphile_worker.add_job('gql_test__queued', '{}')`);
  await o.query(`select graphile_worker.add_job('gql_test__queued', '{}')`);
  await o.query(`select graphile_worker.add_job('gql_test__later', '{}', run_at => now() + interval '1 hour')`);
  const r = await gql(
    operator,
    `query Stuck($task: String!) { allJobStates(first: 10, condition: { task: $task }) { nodes { task state jobs maxAttempts } } }`,
    { task: 'gql_test__queued' },
    { 'X-Request-Id': 'req-gql-1' },
  );
  t.is(r.status, 200, r.text);
  t.is(r.headers.get('x-request-id'), 'req-gql-1');
  t.deepEqual(r.body, { data: { allJobStates: { nodes: [{ task: 'gql_test__queued', state: 'queued', jobs: 2, maxAttempts: 0 }] } } });
  const sql = await o.query(`select task, state, jobs from app_ops.job_states where task like 'gql_test%' order by task, state`);
  const all = await gql(operator, `{ allJobStates(first: 100, orderBy: [TASK_ASC, STATE_ASC]) { nodes { task state jobs } } }`);
  t.deepEqual(
    all.body.data.allJobStates.nodes.filter((n: { task: string }) => n.task.startsWith('gql_test')),
    sql.rows,
  );

  const endpoints = await gql(operator, `{ allWebhookEndpoints(first: 10) { totalCount nodes { endpointId enabled failureStreak disabledReason } } }`);
  t.is(endpoints.status, 200, endpoints.text);
  t.is(endpoints.body.data.allWebhookEndpoints.totalCount, 0);
});

test('there is nothing to mutate', async (t) => {
  const r = await gql(operator, '{ __schema { mutationType { name } } }');
  t.is(r.body.data.__schema.mutationType, null);
});

test("an analyst runs as svc_analyst: the operators' views are refused by Postgres", async (t) => {
  const r = await gql(analyst, `{ allJobStates(first: 1) { nodes { task } } }`);
  t.is(r.status, 200);
  t.is(r.body.data?.allJobStates ?? null, null);
  t.regex(r.body.errors[0].message, /permission denied/);
});

test('partner credentials, revoked and missing tokens get 401', async (t) => {
  const { oauth: c, key, ...a } = await agencyWithTestKey(svc);
  const revoked = newToken('ops_', 32);
  await createOperatorToken(svc.tdb.db.owner, 'Gone', 'operator', hashToken(revoked));
  await svc.tdb.db.owner.query(`select app_private.revoke_operator_tokens('Gone')`);
  for (const token of [key, a.ownerToken, c.token, revoked, undefined]) {
    const r = await gql(token, '{ allJobStates(first: 1) { nodes { task } } }');
    t.is(r.status, 401, r.text);
    t.truthy(r.body.errors[0].message);
    t.is(r.body.data, undefined);
  }
});

test('limits: depth, a connection without first/last or with too large a page, and too many rows are refused before running', async (t) => {
  const deep = `{ ${'query { '.repeat(9)}id${' }'.repeat(9)} }`;
  const refused = async (query: string, why: RegExp) => {
    const r = await gql(operator, query);
    t.is(r.status, 400, r.text);
    t.regex(r.body.errors[0].message, why);
  };
  await refused(deep, /depth exceeds 8/);
  await refused('{ allJobs { nodes { rowId } } }', /allJobs needs first or last/);
  await refused('{ allJobs(first: 5000) { nodes { rowId } } }', /at most 1000/);
  const page = 'allJobs(first: 1000) { nodes { rowId task state attempts lastError createdAt } }';
  await refused(`{ a: ${page} b: ${page} c: ${page} }`, /more than 20000 rows/);
  const ok = await gql(operator, `{ a: ${page} }`);
  t.is(ok.status, 200, ok.text);
  const viaVariable = await gql(operator, 'query($n: Int) { allJobs(first: $n) { nodes { rowId } } }', { n: 5000 });
  t.is(viaVariable.status, 400);
});

test('GraphiQL is off unless enabled; when on, browsers get it on GET /graphql and queries still need a token', async (t) => {
  const off = await svc.request('GET', '/graphql', { headers: { accept: 'text/html' } });
  t.is(off.status, 401);
  const on = await startService({ GRAPHIQL: 'true' });
  try {
    const page = await on.request('GET', '/graphql', { headers: { accept: 'text/html' } });
    t.is(page.status, 200);
    t.regex(page.headers.get('content-type') ?? '', /html/);
    t.regex(page.text, /ruru|graphiql/i);
    const anonymous = await on.request('POST', '/graphql', { json: { query: '{ allJobs(first: 1) { nodes { id } } }' } });
    t.is(anonymous.status, 401);
  } finally {
    await on.close();
  }
});
