import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseConfig } from '../lib/config.ts';
import { createLogger, setLogLevel } from '../lib/log.ts';
import { openDatabase } from '../db/connect.ts';
import { hashToken } from '../lib/secrets.ts';
import { setIdentity, withIdentity } from '../db/pool.ts';
import { seedAgency } from './lib.ts';

setLogLevel('warn');
const dataDir = await mkdtemp(path.join(os.tmpdir(), 'svc-scratch-'));
const cfg = parseConfig({ DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(56000 + (process.pid % 1000)) });
const opened = await openDatabase(cfg, createLogger(), { poolSize: 8 });
const db = opened.db;
const { oauthClientId, agencyId, agentId } = await seedAgency(db, 'scr');
for (let i = 0; i < 200; i++) {
  await withIdentity(db, { role: 'oauth_client', oauthClientId }, (c) =>
    c.query(`select app_public.create_agency($1, null, 'A', 'B', $2, $3, $4)`, [`Other ${i}`, `o${i}@example.com`, `other-${i}`, hashToken(`t${i}`)]),
  );
}
const identity = { role: 'owner' as const, agencyId, agentId };
type V = (c: any) => Promise<void>;
const variants: Record<string, V> = {
  rls: async (c) => {
    await c.query('begin');
    await setIdentity(db, c, identity);
    await c.query({ name: 'b_rls', text: 'select id, name, color_code, logo_key from app_public.agencies where id = $1', values: [agencyId] });
    await c.query('commit');
  },
  plain: async (c) => {
    await c.query('begin');
    await c.query({
      name: 'b_plain_id',
      text: `select set_config('svc.role', $1, true), set_config('svc.oauth_client_id', $2, true), set_config('svc.agency_id', $3, true),
          set_config('svc.agent_id', $4, true), set_config('svc.mode', $5, true), set_config('svc.api_key_id', $6, true)`,
      values: ['owner', '', String(agencyId), String(agentId), '', ''],
    });
    await c.query({ name: 'b_plain', text: 'select id, name, color_code, logo_key from app_public.agencies where id = $1 and id = $2', values: [agencyId, agencyId] });
    await c.query('commit');
  },
  roleOnlyExplicit: async (c) => {
    await c.query('begin');
    await setIdentity(db, c, identity);
    await c.query({ name: 'b_plain2', text: 'select 1 as id', values: [] });
    await c.query('commit');
  },
  plainNoQuery: async (c) => {
    await c.query('begin');
    await c.query({
      name: 'b_plain_id',
      text: `select set_config('svc.role', $1, true), set_config('svc.oauth_client_id', $2, true), set_config('svc.agency_id', $3, true),
          set_config('svc.agent_id', $4, true), set_config('svc.mode', $5, true), set_config('svc.api_key_id', $6, true)`,
      values: ['owner', '', String(agencyId), String(agentId), '', ''],
    });
    await c.query({ name: 'b_plain3', text: 'select 1 as id', values: [] });
    await c.query('commit');
  },
};
const names = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(variants);
const totals: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
const clients = await Promise.all(Array.from({ length: 4 }, () => db.request.connect()));
for (let round = 0; round < 4000; round++) {
  await Promise.all(
    clients.map(async (c, k) => {
      for (let j = 0; j < names.length; j++) {
        const n = names[(j + k + round) % names.length];
        const t0 = performance.now();
        await variants[n](c);
        totals[n].push(performance.now() - t0);
      }
    }),
  );
}
for (const n of names) {
  const s = totals[n].sort((a, b) => a - b);
  const mean = s.reduce((a, b) => a + b, 0) / s.length;
  console.log(n.padEnd(20), 'mean', mean.toFixed(3), 'median', s[Math.floor(s.length / 2)].toFixed(3), 'p10', s[Math.floor(s.length / 10)].toFixed(3));
}
clients.forEach((c) => c.release());
await opened.close();
