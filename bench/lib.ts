// Small helpers shared by the benchmarks: latency percentiles, a fixed-concurrency load loop, seed data, local
// servers and the requests a suite sends them.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileBlobStore } from '../lib/blobs.ts';
import { parseConfig } from '../lib/config.ts';
import { hashToken } from '../lib/secrets.ts';
import { withIdentity, type Database } from '../db/pool.ts';

/** What every suite is given: the database of the run, its URL, a scratch directory and whether to run short. */
export interface BenchContext {
  db: Database;
  url: string;
  dataDir: string;
  quick: boolean;
}

/**
 * What a suite's app and worker run with: settings for the run's database and scratch directory (quiet, and `env`),
 * a secret key of the suite's own, and blobs stored under the scratch directory.
 */
export function benchDeps(ctx: BenchContext, env: Record<string, string> = {}) {
  return {
    cfg: parseConfig({ DATABASE_URL: ctx.url, DATA_DIR: ctx.dataDir, LOG_LEVEL: 'silent', ...env }),
    secretKey: randomBytes(32),
    blobs: fileBlobStore(path.join(ctx.dataDir, 'blobs')),
  };
}

export interface LoadResult {
  requests: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
  errors: number;
}

export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Run `op` from `concurrency` loops for `seconds`; latencies in milliseconds. */
export async function load(op: () => Promise<boolean>, opts: { concurrency: number; seconds: number }): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  const end = performance.now() + opts.seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: opts.concurrency }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        const ok = await op().catch(() => false);
        latencies.push(performance.now() - t0);
        if (!ok) errors++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { requests: latencies.length, seconds, perSecond: latencies.length / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), errors };
}

export const fmt = (n: number, digits = 1) => n.toFixed(digits);

export function report(name: string, r: LoadResult): void {
  process.stdout.write(
    `${name.padEnd(58)} ${fmt(r.perSecond, 0).padStart(8)} req/s   p50 ${fmt(r.p50, 2).padStart(7)} ms   p99 ${fmt(r.p99, 2).padStart(7)} ms${r.errors ? `   errors ${r.errors}` : ''}\n`,
  );
}

/** A fresh OAuth client with one agency, through the same SQL functions the API calls; `label` (lowercase, hyphens) keeps names unique. */
export async function seedAgency(db: Database, label: string): Promise<{ oauthClientId: number; agencyId: number; agentId: number; agentToken: string }> {
  const client = await db.owner.query<{ id: number }>(`insert into app_private.oauth_clients (client_id, name, secret_hash) values ($1, $2, $3) returning id`, [
    `oc_${label}`,
    label,
    hashToken(`secret-${label}`),
  ]);
  const agentToken = `agt_${label}`;
  const created = await withIdentity(db, { role: 'oauth_client', oauthClientId: client.rows[0].id }, (c) =>
    c.query<{ agency_id: number; agent_id: number }>(
      `select (r.agency).id as agency_id, (r.agent).id as agent_id from app_public.create_agency($1, null, 'Bench', 'Owner', $2, $3, $4) r`,
      [`${label} agency`, `${label}@example.com`, `${label}-owner`, hashToken(agentToken)],
    ),
  );
  return { oauthClientId: client.rows[0].id, agencyId: created.rows[0].agency_id, agentId: created.rows[0].agent_id, agentToken };
}

/** The port of a server listening (or about to listen, as `app.listen(0, '127.0.0.1')` leaves it) on 127.0.0.1. */
export async function localPort(server: http.Server): Promise<number> {
  if (!server.listening) await new Promise<void>((r) => server.once('listening', () => r()));
  return (server.address() as AddressInfo).port;
}

/** A webhook receiver on a free local port that answers 204 after handing `onBody` each JSON body; its URL. */
export async function jsonReceiver(onBody: (body: unknown) => void): Promise<{ server: http.Server; url: string }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      onBody(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      res.writeHead(204).end();
    });
  });
  return { server, url: `http://127.0.0.1:${await localPort(server.listen(0, '127.0.0.1'))}/hook` };
}

/** The keep-alive connections of a suite's requests. */
export const keepAliveAgent = () => new http.Agent({ keepAlive: true, maxSockets: 16 });

interface Request {
  agent: http.Agent;
  port: number;
  method: string;
  path: string;
  body?: string;
  headers: Record<string, string>;
}

/** One request to the service on 127.0.0.1 (a JSON body when there is one); `read` makes the answer, `failed` stands for none. */
function send<T>(r: Request, read: (res: http.IncomingMessage, done: (v: T) => void) => void, failed: T): Promise<T> {
  return new Promise<T>((resolve) => {
    const headers = { ...(r.body ? { 'content-type': 'application/json' } : {}), ...r.headers };
    const req = http.request({ host: '127.0.0.1', port: r.port, path: r.path, method: r.method, agent: r.agent, headers }, (res) => read(res, resolve));
    req.on('error', () => resolve(failed));
    req.end(r.body);
  });
}

/** A request's answer: status, text and headers (status 0 when it fails). */
export const request = (agent: http.Agent, port: number, method: string, path: string, body?: string, headers: Record<string, string> = {}) =>
  send<{ status: number; text: string; headers: http.IncomingHttpHeaders }>(
    { agent, port, method, path, body, headers },
    (res, done) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
    },
    { status: 0, text: '', headers: {} },
  );

/** A request's status only, the body read and dropped, for load loops (0 when it fails). */
export const requestStatus = (agent: http.Agent, port: number, method: string, path: string, body?: string, headers: Record<string, string> = {}) =>
  send<number>(
    { agent, port, method, path, body, headers },
    (res, done) => {
      res.resume();
      res.on('end', () => done(res.statusCode ?? 0));
    },
    0,
  );
