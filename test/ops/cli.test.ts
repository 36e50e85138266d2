// `svc operators create|revoke`: a token printed once, stored hashed, that opens /graphql and /metrics
// until it is revoked.
import test from 'ava';
import { hashToken } from '../../lib/secrets.ts';
import { runSvc } from '../helpers/cli.ts';
import { fileService } from '../helpers/server.ts';

const svc = fileService();

const cli = (args: string[]) => runSvc(svc, args);

test('operators create prints a token once as JSON; it is stored hashed and opens /graphql and /metrics until revoked', async (t) => {
  const created = await cli(['operators', 'create', '--role', 'operator', '--name', 'Olga', '--json']);
  t.is(created.code, 0, created.stderr);
  const { token } = JSON.parse(created.stdout) as { token: string };
  t.deepEqual(Object.keys(JSON.parse(created.stdout)), ['token']);
  const stored = await svc.tdb.db.owner.query('select name, role, token_hash from app_private.operator_tokens');
  t.is(stored.rows.length, 1);
  t.like(stored.rows[0], { name: 'Olga', role: 'operator' });
  t.deepEqual(stored.rows[0].token_hash, hashToken(token));
  t.false(JSON.stringify(stored.rows).includes(token));

  t.is((await svc.request('GET', '/metrics', { token })).status, 200);
  const q = await svc.request('POST', '/graphql', { token, json: { query: '{ allJobStates(first: 1) { totalCount } }' } });
  t.is(q.status, 200, q.text);

  const revoked = await cli(['operators', 'revoke', '--name', 'Olga']);
  t.is(revoked.code, 0, revoked.stderr);
  t.regex(revoked.stdout, /1 token/);
  t.is((await svc.request('GET', '/metrics', { token })).status, 401);
});

test('operators create refuses a missing name or an unknown role', async (t) => {
  for (const args of [
    ['operators', 'create', '--role', 'operator'],
    ['operators', 'create', '--role', 'admin', '--name', 'X'],
    ['operators', 'list'],
  ]) {
    const r = await cli(args);
    t.is(r.code, 2, args.join(' '));
    t.regex(r.stderr, /usage: svc operators create --role operator\|analyst --name NAME/);
  }
  const human = await cli(['operators', 'create', '--role', 'analyst', '--name', 'Ana']);
  t.is(human.code, 0, human.stderr);
  t.regex(human.stdout, /analyst token for "Ana" created\. It is shown only now/);
  t.regex(human.stdout, /token: ops_/);
});
