// /graphql: PostGraphile over the operators' views, for operator and analyst tokens only, as their roles,
// with depth, page and cost limits.
import test from 'ava';
import { createOperatorToken } from '../../db/queries/operators.ts';
import { hashToken, newToken } from '../../lib/secrets.ts';
import { startService, type TestService } from '../helpers/server.ts';

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

const gql = (token: string | undefined, query: string, variables?: Record<string, unknown>) =>
  svc.request('POST', '/graphql', { token, json: { query, variables } });

test('schema', async (t) => {
  const r = await gql(operator, '{ __schema { queryType { fields { name args { name } } } } }');
  t.log(JSON.stringify(r.body).slice(0, 3000));
  t.pass();
});
