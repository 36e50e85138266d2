// A real service over a fresh database on 127.0.0.1, and a small client for its API.
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { parseConfig, type Config } from '../../lib/config.ts';
import { blobStoreFromConfig } from '../../lib/blobs.ts';
import { loadOrCreateKey } from '../../lib/crypto.ts';
import { createLogger, setLogLevel } from '../../lib/log.ts';
import { createOAuthClient } from '../../db/queries/oauth.ts';
import { createApp } from '../../http/app.ts';
import type { Deps } from '../../http/route.ts';
import { contractChecker, type ContractAnswer } from './contract.ts';
import { testDatabase, type TestDatabase } from './db.ts';

export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface TestService {
  url: string;
  cfg: Config;
  tdb: TestDatabase;
  deps: Deps;
  dataDir: string;
  request<T = any>(
    method: string,
    path: string,
    opts?: { token?: string; json?: unknown; form?: FormData | URLSearchParams; headers?: Record<string, string> },
  ): Promise<Reply<T>>;
  /** Every answer received through `request`, checked against /openapi.json when the service closes. */
  answers: ContractAnswer[];
  /** The answers that do not match the OpenAPI document (additional properties forbidden). */
  contractMismatches(): Promise<string[]>;
  /** A new OAuth client and a token for it. */
  oauthClient(name?: string): Promise<{ client_id: string; client_secret: string; token: string }>;
  /** A new agency (through the API) with its owner's token. */
  agency(oauthToken: string, name?: string): Promise<{ agencyId: number; ownerId: number; ownerToken: string; slug: string }>;
  /** A new API key of the agency, made by an admin agent. */
  apiKey(adminToken: string, agencyId: number, mode?: 'test' | 'live', permissions?: 'admin' | 'read_only'): Promise<string>;
  close(): Promise<void>;
}

let seq = 0;

/** Two OAuth clients named `names`, each with an agency of its own (c1's a1, c2's a2): a tenant and a stranger. */
export async function twoClients(svc: TestService, names: [string, string]) {
  const c1 = await svc.oauthClient(names[0]);
  const c2 = await svc.oauthClient(names[1]);
  return { c1, c2, a1: await svc.agency(c1.token), a2: await svc.agency(c2.token) };
}

/**
 * The test file's service: started (with `env`) before its first test and closed after its last. The value stands
 * for that service; reading it before the start throws.
 */
export function fileService(env: Record<string, string> = {}): TestService {
  let svc: TestService | undefined;
  test.before(async () => {
    svc = await startService(env);
  });
  test.after.always(async () => svc?.close());
  return new Proxy({} as TestService, {
    get(_target, prop) {
      if (!svc) throw new Error('the service is not started yet (use it inside a test or hook)');
      return Reflect.get(svc, prop, svc);
    },
  });
}

export async function startService(env: Record<string, string> = {}): Promise<TestService> {
  setLogLevel('silent');
  const tdb = await testDatabase();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'svc-test-data-'));
  const base = parseConfig({ DATABASE_URL: tdb.url, DATA_DIR: dataDir, TMP_DIR: dataDir, LOG_LEVEL: 'silent', ...env });
  const deps: Deps = {
    db: tdb.db,
    cfg: base,
    log: createLogger(),
    blobs: blobStoreFromConfig(base),
    secretKey: loadOrCreateKey(path.join(dataDir, 'secret-key')),
  };
  const app = createApp(deps);
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((r) => server.once('listening', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  deps.cfg = { ...base, publicUrl: url, filesUrl: env.FILES_URL ?? url, appUrl: env.APP_URL ?? url };

  const answers: ContractAnswer[] = [];
  const request = requester(url, answers);

  const svc: TestService = {
    url,
    cfg: deps.cfg,
    tdb,
    deps,
    dataDir,
    request,
    answers,
    async contractMismatches() {
      const res = await fetch(`${url}/openapi.json`);
      const check = contractChecker(await res.json());
      return [...new Set(answers.map(check).filter((m): m is string => !!m))];
    },
    async oauthClient(name = 'Partner') {
      const c = await createOAuthClient(tdb.db.owner, name);
      const r = await request('POST', '/oauth/token', { json: { grant_type: 'client_credentials', client_id: c.client_id, client_secret: c.client_secret } });
      if (r.status !== 200) throw new Error(`token request failed: ${r.text}`);
      return { ...c, token: r.body.access_token };
    },
    agency: (oauthToken, name) => createAgency(request, oauthToken, name),
    apiKey: (adminToken, agencyId, mode, permissions) => createApiKey(request, adminToken, agencyId, mode, permissions),
    async close() {
      // The schema-vs-response check of every answer this file's tests received (test/helpers/contract.ts).
      const mismatches = await svc.contractMismatches();
      await new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections();
      await tdb.drop();
      await rm(dataDir, { recursive: true, force: true });
      if (mismatches.length) throw new Error(`answers that do not match /openapi.json:\n${mismatches.join('\n')}`);
    },
  };
  return svc;
}

/** `request` of a TestService, for any base URL (a service started as a separate process); `answers` collects what came back. */
export function requester(url: string, answers?: ContractAnswer[]): TestService['request'] {
  return async (method, p, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    let body: BodyInit | undefined;
    if (opts.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = typeof opts.json === 'string' ? opts.json : JSON.stringify(opts.json);
    } else if (opts.form) body = opts.form;
    const res = await fetch(url + p, { method, headers, body, redirect: 'manual' });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {}
    answers?.push({ method, path: p, status: res.status, contentType: res.headers.get('content-type'), body: parsed });
    return { status: res.status, headers: res.headers, body: parsed as any, text };
  };
}

/** A new agency (through the API) with its owner's token. */
/** A new agency of a new OAuth client (`oauth`) with an admin API key of test mode (`key`): where most worker and API tests start. */
export async function agencyWithTestKey(svc: Pick<TestService, 'oauthClient' | 'agency' | 'apiKey'>) {
  const oauth = await svc.oauthClient();
  const a = await svc.agency(oauth.token);
  return { ...a, oauth, key: await svc.apiKey(a.ownerToken, a.agencyId, 'test') };
}

export async function createAgency(request: TestService['request'], oauthToken: string, name = `Agency ${++seq}`) {
  const r = await request('POST', '/v1/agencies', {
    token: oauthToken,
    json: { agency_name: name, email: `owner${seq}@example.com`, first_name: 'Olive', last_name: `Owner${seq}` },
  });
  if (r.status !== 200) throw new Error(`agency creation failed: ${r.text}`);
  return { agencyId: r.body.data.agency.id, ownerId: r.body.data.agent.id, ownerToken: r.body.data.agent.access_token, slug: r.body.data.agent.slug };
}

/** A new API key of the agency, made by an admin agent. */
export async function createApiKey(
  request: TestService['request'],
  adminToken: string,
  agencyId: number,
  mode: 'test' | 'live' = 'test',
  permissions: 'admin' | 'read_only' = 'admin',
): Promise<string> {
  const r = await request('POST', `/v1/agencies/${agencyId}/api-keys`, { token: adminToken, json: { name: `${mode} ${permissions}`, mode, permissions } });
  if (r.status !== 200) throw new Error(`API key creation failed: ${r.text}`);
  return r.body.data.key;
}
