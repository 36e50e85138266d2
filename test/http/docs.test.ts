// The OpenAPI document passes redocly's recommended rules, and /docs serves a browsable reference whose
// every asset comes from the service itself.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { DOCS_CSP, scalarBundlePath } from '../../http/docs.ts';
import { fileService } from '../helpers/server.ts';

const svc = fileService();

test('the OpenAPI document passes `redocly lint` with the strict recommended rules (headers and webhooks included), public operations saying security: []', async (t) => {
  const doc = (await svc.request('GET', '/openapi.json')).body;
  for (const [p, ops] of Object.entries(doc.paths as Record<string, Record<string, { security?: unknown[] }>>)) {
    for (const [m, op] of Object.entries(ops)) t.true(Array.isArray(op.security), `${m} ${p} declares its security`);
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), 'svc-redocly-'));
  try {
    const file = path.join(dir, 'openapi.json');
    // A public server URL: the localhost a test server listens on is only a warning, but not what is linted here.
    await writeFile(file, JSON.stringify({ ...doc, servers: [{ url: 'https://api.intake.test' }] }));
    const bin = path.resolve('node_modules/.bin/redocly');
    // recommended-strict: every warning of the recommended set is an error, the webhooks section and the
    // response-header components included (unused components, operation ids, parameter descriptions, …).
    const run = await promisify(execFile)(bin, ['lint', file, '--extends=recommended-strict', '--format=json'], {
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      timeout: 90_000,
    }).catch((err: { stdout?: string; stderr?: string }) => ({ stdout: err.stdout ?? '', stderr: err.stderr ?? '' }));
    const report = JSON.parse(run.stdout.slice(run.stdout.indexOf('{'))) as {
      totals: { errors: number; warnings: number };
      problems: Array<{ ruleId: string; message: string }>;
    };
    t.is(report.totals.errors, 0, report.problems.map((p) => `${p.ruleId}: ${p.message}`).join('\n'));
    t.is(report.totals.warnings, 0, report.problems.map((p) => `${p.ruleId}: ${p.message}`).join('\n'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('/docs is a CSP-locked page whose scripts are served by the service from the installed Scalar package', async (t) => {
  const page = await fetch(`${svc.url}/docs`);
  t.is(page.status, 200);
  t.regex(page.headers.get('content-type') ?? '', /text\/html/);
  t.is(page.headers.get('content-security-policy'), DOCS_CSP);
  t.regex(DOCS_CSP, /script-src 'self'(;|$)/);
  const html = await page.text();
  const srcs = [...html.matchAll(/<(?:script|link)[^>]+(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
  t.true(srcs.length >= 2);
  for (const src of srcs) t.true(src.startsWith('/'), `${src} is served by the service, not a CDN`);
  t.false(/<script>(?!<\/script>)[^<]/.test(html), 'no inline script');
  const bundle = await fetch(`${svc.url}/docs/scalar.js`);
  t.is(bundle.status, 200);
  t.regex(bundle.headers.get('content-type') ?? '', /javascript/);
  const bytes = Buffer.from(await bundle.arrayBuffer());
  t.deepEqual(bytes, await readFile(scalarBundlePath()), 'the very file of node_modules/@scalar/api-reference');
  // (A kept-alive socket the server closed after the 3.5 MB answer on a loaded machine resets: ask again once.)
  const revalidate = () => fetch(`${svc.url}/docs/scalar.js`, { headers: { 'if-none-match': bundle.headers.get('etag') ?? '' } });
  const again = await revalidate().catch(revalidate);
  t.is(again.status, 304);
  const init = await (await fetch(`${svc.url}/docs/init.js`)).text();
  t.regex(init, /url: '\/openapi\.json'/);
  t.regex(init, /withDefaultFonts: false/);
});
