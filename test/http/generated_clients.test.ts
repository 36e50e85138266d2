// Clients generated from /openapi.json by two independent generators each compile (tsc, strict) and run one
// end-to-end flow against the running service: OAuth token → agency → API key → form → publish → signed
// link, whose page then opens. The generated code lives in a temp directory removed afterwards.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { startService, type TestService } from '../helpers/server.ts';

const run = promisify(execFile);
const bin = (name: string) => path.resolve('node_modules/.bin', name);
const env = { ...process.env, REDOCLY_TELEMETRY: 'off', NO_COLOR: '1' };

let svc: TestService;
let dir: string;
test.before(async () => {
  svc = await startService();
  dir = await mkdtemp(path.join(os.tmpdir(), 'svc-generated-clients-'));
  // The generated code resolves its packages (openapi-fetch, the types of Node) from the project's install.
  await symlink(path.resolve('node_modules'), path.join(dir, 'node_modules'), 'dir');
  await writeFile(path.join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  await writeFile(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: 'es2022',
        module: 'esnext',
        moduleResolution: 'bundler',
        lib: ['es2022', 'dom'],
        types: ['node'],
        // The generators' own output is what is checked here; declaration files of dependencies are theirs.
        skipLibCheck: true,
      },
      include: ['**/*.ts'],
      exclude: ['node_modules'],
    }),
  );
  const doc = (await svc.request('GET', '/openapi.json')).body;
  await writeFile(path.join(dir, 'openapi.json'), JSON.stringify(doc));
});
test.after.always(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  await svc?.close();
});

/** Compile the flow's folder (the generated code and the flow, strict), then run `flow` against the service and parse what it prints. */
async function compileAndRun(flow: string, args: string[]): Promise<Record<string, unknown>> {
  const project = path.join(dir, path.dirname(flow), 'tsconfig.json');
  await writeFile(project, JSON.stringify({ extends: '../tsconfig.json', include: ['**/*.ts'] }));
  await run(bin('tsc'), ['-p', project], { cwd: dir, env, timeout: 180_000 }).catch((err: { stdout?: string }) => {
    throw new Error(`the generated client does not compile:\n${err.stdout}`);
  });
  const out = await run(bin('tsx'), [path.join(dir, flow), ...args], { cwd: dir, env, timeout: 120_000 });
  return JSON.parse(out.stdout.trim().split('\n').pop()!);
}

/** Credentials of a fresh OAuth client: the flow asks for its token itself through the generated client. */
async function flowArgs(): Promise<string[]> {
  const c = await svc.oauthClient(`Generated ${Math.random()}`);
  return [svc.url, c.client_id, c.client_secret];
}

async function checkFlowResult(t: import('ava').ExecutionContext, result: Record<string, unknown>) {
  t.is(result.status, 'active');
  t.regex(String(result.public_id), /^f_/);
  t.regex(String(result.link), /^http:\/\/127\.0\.0\.1:\d+\//);
  // The signed link opens the hosted form.
  const page = await fetch(String(result.link));
  t.is(page.status, 200);
  t.regex(page.headers.get('content-type') ?? '', /text\/html/);
  t.regex(await page.text(), /Generated client home form/);
}

test.serial('openapi-typescript + openapi-fetch: the typed client compiles and runs the flow', async (t) => {
  t.timeout(300_000);
  await run(bin('openapi-typescript'), [path.join(dir, 'openapi.json'), '-o', path.join(dir, 'ot', 'schema.d.ts')], { cwd: dir, env, timeout: 120_000 });
  await writeFile(
    path.join(dir, 'ot', 'flow.ts'),
    `import createClient from 'openapi-fetch';
import type { paths } from './schema.d.ts';
import { randomUUID } from 'node:crypto';

const [baseUrl, clientId, clientSecret] = process.argv.slice(2);
const open = createClient<paths>({ baseUrl });
const fail = (step: string, e: unknown): never => { throw new Error(step + ': ' + JSON.stringify(e)); };

const token = await open.POST('/oauth/token', { body: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret } });
if (!token.data) fail('token', token.error);
const asClient = { Authorization: 'Bearer ' + token.data!.access_token };
const agency = await open.POST('/v1/agencies', {
  headers: asClient,
  body: { agency_name: 'Generated (openapi-fetch)', email: 'owner-' + randomUUID() + '@example.com', first_name: 'Gen', last_name: 'Erated' },
});
if (!agency.data) fail('agency', agency.error);
const agencyId: number = agency.data!.data.agency.id;
const agentId: number = agency.data!.data.agent.id;
const asAgent = { Authorization: 'Bearer ' + agency.data!.data.agent.access_token };
const key = await open.POST('/v1/agencies/{agency_id}/api-keys', {
  headers: asAgent,
  params: { path: { agency_id: agencyId } },
  body: { name: 'generated', mode: 'test', permissions: 'admin' },
});
if (!key.data) fail('api key', key.error);
const asKey = { Authorization: 'Bearer ' + key.data!.data.key };
const created = await open.POST('/v2/forms', {
  headers: asKey,
  params: { header: { 'Idempotency-Key': randomUUID() } },
  body: { name: 'Generated client home form', owner: { type: 'agency', agency_id: agencyId }, insurance_line: 'homeowners', template_id: 'home' },
});
if (!created.data) fail('create form', created.error);
const published = await open.POST('/v2/forms/{id}/publish', {
  headers: asKey,
  params: { path: { id: created.data!.id }, header: { 'Idempotency-Key': randomUUID() } },
});
if (!published.data) fail('publish', published.error);
const link = await open.POST('/v2/forms/{id}/links', {
  headers: asKey,
  params: { path: { id: published.data!.id }, header: { 'Idempotency-Key': randomUUID() } },
  body: { agent_id: agentId, metadata: { crm_id: 'lead-1' } },
});
if (!link.data) fail('link', link.error);
const status: 'draft' | 'active' = published.data!.status;
console.log(JSON.stringify({ status, public_id: published.data!.public_id, link: link.data!.url }));
`,
  );
  await checkFlowResult(t, await compileAndRun('ot/flow.ts', await flowArgs()));
});

test.serial('@hey-api/openapi-ts with its fetch client: the generated SDK compiles and runs the flow', async (t) => {
  t.timeout(300_000);
  await run(bin('openapi-ts'), ['-i', path.join(dir, 'openapi.json'), '-o', path.join(dir, 'hey'), '-c', '@hey-api/client-fetch', '-s', '--no-log-file'], {
    cwd: dir,
    env,
    timeout: 180_000,
  });
  await writeFile(
    path.join(dir, 'hey', 'flow.ts'),
    `import { randomUUID } from 'node:crypto';
import { createClient, createConfig } from './client';
import { createAgency, createApiKey, createForm, createFormLink, issueToken, publishForm } from './sdk.gen';

const [baseUrl, clientId, clientSecret] = process.argv.slice(2);
const as = (auth?: string) => createClient(createConfig({ baseUrl, auth }));
const fail = (step: string, e: unknown): never => { throw new Error(step + ': ' + JSON.stringify(e)); };

const token = await issueToken({ client: as(), body: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret } });
if (!token.data) fail('token', token.error);
const agency = await createAgency({
  client: as(token.data!.access_token),
  body: { agency_name: 'Generated (hey-api)', email: 'owner-' + randomUUID() + '@example.com', first_name: 'Gen', last_name: 'Erated' },
});
if (!agency.data) fail('agency', agency.error);
const agencyId: number = agency.data!.data.agency.id;
const agentId: number = agency.data!.data.agent.id;
const key = await createApiKey({
  client: as(agency.data!.data.agent.access_token),
  path: { agency_id: agencyId },
  body: { name: 'generated', mode: 'test', permissions: 'admin' },
});
if (!key.data) fail('api key', key.error);
const client = as(key.data!.data.key);
const created = await createForm({
  client,
  headers: { 'Idempotency-Key': randomUUID() },
  body: { name: 'Generated client home form', owner: { type: 'agency', agency_id: agencyId }, insurance_line: 'homeowners', template_id: 'home' },
});
if (!created.data) fail('create form', created.error);
const published = await publishForm({ client, path: { id: created.data!.id }, headers: { 'Idempotency-Key': randomUUID() } });
if (!published.data) fail('publish', published.error);
const link = await createFormLink({
  client,
  path: { id: published.data!.id },
  headers: { 'Idempotency-Key': randomUUID() },
  body: { agent_id: agentId, metadata: { crm_id: 'lead-1' } },
});
if (!link.data) fail('link', link.error);
const status: 'draft' | 'active' = published.data!.status;
console.log(JSON.stringify({ status, public_id: published.data!.public_id, link: link.data!.url }));
`,
  );
  await checkFlowResult(t, await compileAndRun('hey/flow.ts', await flowArgs()));
});
