// Forms API: POST /v2/forms (idempotent write: key claim, insert, stored response) and GET /v2/forms/{id}
// over HTTP, beside the GET of a v1 agency in the same run as the peer of the same request pipeline.
import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import { parseConfig } from '../lib/config.ts';
import { fileBlobStore } from '../lib/blobs.ts';
import { createLogger, setLogLevel } from '../lib/log.ts';
import { hashToken } from '../lib/secrets.ts';
import { withIdentity } from '../db/pool.ts';
import { createApp } from '../http/app.ts';
import { template } from '../pipelines/forms/templates.ts';
import { keepAliveAgent, load, localPort, report, requestStatus, seedAgency } from './lib.ts';
import type { BenchContext } from './lib.ts';

export async function run(ctx: BenchContext): Promise<void> {
  setLogLevel('silent');
  const { db } = ctx;
  const cfg = parseConfig({ DATABASE_URL: ctx.url, DATA_DIR: ctx.dataDir, RATE_LIMIT_V1_PER_WINDOW: '100000', LOG_LEVEL: 'silent' });
  const { agencyId, agentId, agentToken } = await seedAgency(db, 'bench-forms');
  const apiKey = 'svc_test_formsbenchkey000000000000000000';
  await withIdentity(db, { role: 'owner', agencyId, agentId }, (c) =>
    c.query(`select app_public.create_api_key($1, 'bench', 'test', 'admin', $2, 'svc_test_form', '0000')`, [agencyId, hashToken(apiKey)]),
  );

  const app = createApp({ db, cfg, log: createLogger(), blobs: fileBlobStore(path.join(ctx.dataDir, 'blobs')), secretKey: randomBytes(32) });
  const server = app.listen(0, '127.0.0.1');
  const port = await localPort(server);
  const agent = keepAliveAgent();
  const call = (method: string, p: string, token: string, body?: string, headers: Record<string, string> = {}) =>
    requestStatus(agent, port, method, p, body, { authorization: `Bearer ${token}`, ...headers });

  const createBody = JSON.stringify({
    name: 'Bench form',
    owner: { type: 'agency', agency_id: agencyId },
    insurance_line: 'personal_auto',
    template_id: 'auto',
  });
  const post = async () => (await call('POST', '/v2/forms', apiKey, createBody, { 'idempotency-key': randomUUID() })) === 201;
  const seconds = ctx.quick ? 2 : 6;
  await load(post, { concurrency: 4, seconds: 1 });
  const { rows } = await db.owner.query('select id from app_public.forms order by id limit 1');
  const formId = rows[0].id;
  const getForm = async () => (await call('GET', `/v2/forms/${formId}`, apiKey)) === 200;
  const getAgency = async () => (await call('GET', `/v1/agencies/${agencyId}`, agentToken)) === 200;
  const steps = template('auto').structure.steps.reduce((n, s) => n + s.questions.length, 0);
  report(`POST /v2/forms (auto template, ${steps} questions, 4 conns)`, await load(post, { concurrency: 4, seconds }));
  report('GET /v2/forms/{id} (auto template, 8 conns)', await load(getForm, { concurrency: 8, seconds }));
  report('peer: GET /v1/agencies/{id} (8 conns)', await load(getAgency, { concurrency: 8, seconds }));
  server.close();
  agent.destroy();
}
