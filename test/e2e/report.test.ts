// The compliance report end to end (issue 31): a real worker analyses a lease pair, then the report is read
// through HTTP under the analysis's key rules, forwarded as a signed link that works without credentials (until
// revoked or expired), opened in Chromium on a phone and a desktop (axe, no sideways scrolling, screenshots in the
// temp dir's report-screens), printed to PDF by Chromium on A4 and US letter with every check's name in its text
// (pdftotext), and reached from the dashboard's list of lease checks.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import type { Runner } from 'graphile-worker';
import { PDFDocument } from 'pdf-lib';
import type { Browser } from 'playwright-core';
import { reportLinkKey, signReportToken } from '../../lib/links.ts';
import { closeDocumentPools } from '../../pipelines/documents/index.ts';
import { comparisonFields } from '../../pipelines/lease/schema.ts';
import { assertAccessible, axe, browserTest, browserUnavailable, launchBrowser, VIEWPORTS } from '../helpers/browser.ts';
import { startService, type TestService } from '../helpers/server.ts';
import { eventually, startTestWorker } from '../helpers/worker.ts';
import { solidImage } from '../helpers/images.ts';

const screens = path.join(os.tmpdir(), 'report-screens');
const pair = 'fixtures/lease/com_gaps';
const asOf = JSON.parse(fs.readFileSync(`${pair}.expected.json`, 'utf8')).as_of as string;

let svc: TestService;
let worker: Runner;
let browser: Browser | undefined;
let key: string;
let liveKey: string;
let otherKey: string;
let ownerId: number;
let oauthToken: string;
let analysisId: string;

test.before(async () => {
  svc = await startService({ RATE_LIMIT_REPORT_OPENS_PER_WINDOW: '5', RATE_LIMIT_WINDOW_SECONDS: '3600' });
  worker = await startTestWorker(svc);
  if (!browserUnavailable) browser = await launchBrowser();
  await mkdir(screens, { recursive: true });
  const c = await svc.oauthClient();
  oauthToken = c.token;
  const a = await svc.agency(c.token, 'Harbor Lane Insurance');
  ownerId = a.ownerId;
  const brand = new FormData();
  brand.set('_method', 'PATCH');
  brand.set('color_code', '0f766e');
  const logo = await solidImage(96, 32, '#0f766e');
  brand.set('logo', new Blob([new Uint8Array(logo)], { type: 'image/png' }), 'logo.png');
  const branded = await svc.request('POST', `/v1/agencies/${a.agencyId}`, { token: a.ownerToken, form: brand });
  if (branded.status !== 200) throw new Error(branded.text);
  await svc.request('PUT', `/v1/agencies/${a.agencyId}/plan`, { token: c.token, json: { plan: 'enterprise', per_minute: 10_000, per_day: 100_000 } });
  key = await svc.apiKey(a.ownerToken, a.agencyId, 'test');
  liveKey = await svc.apiKey(a.ownerToken, a.agencyId, 'live');
  const b = await svc.agency(c.token, 'Other Agency');
  otherKey = await svc.apiKey(b.ownerToken, b.agencyId, 'test');

  const form = new FormData();
  for (const side of ['lease', 'insurance'] as const)
    form.append(side, new Blob([new Uint8Array(fs.readFileSync(`${pair}.${side}.pdf`))], { type: 'application/pdf' }), `${side}.pdf`);
  form.append('as_of', asOf);
  const started = await svc.request('POST', '/api/analyze?async=true', { form, headers: { 'x-api-key': key } });
  if (started.status !== 202) throw new Error(started.text);
  analysisId = started.body.id;
  await eventually(
    async () => (await svc.request('GET', `/api/analyses/${analysisId}`, { headers: { 'x-api-key': key } })).body?.status === 'completed',
    300_000,
    'the analysis',
  );
});

test.after.always(async () => {
  await browser?.close();
  await worker?.stop();
  await svc?.close();
  await closeDocumentPools();
});

const pdfText = (pdf: Buffer) => execFileSync('pdftotext', ['-layout', '-', '-'], { input: pdf }).toString('utf8');
const makeLink = () => svc.request('POST', `/api/analyses/${analysisId}/report-links`, { headers: { 'x-api-key': key } });

test.serial('the report is HTML under the analysis’s key rules: the key’s agency and mode only', async (t) => {
  const r = await svc.request('GET', `/api/analyses/${analysisId}/report`, { headers: { 'x-api-key': key } });
  t.is(r.status, 200, r.text);
  t.regex(r.headers.get('content-type')!, /^text\/html/);
  for (const f of comparisonFields) t.true(r.text.includes(f.replace('&', '&amp;')), `${f} is a row`);
  t.true(r.text.includes('Overall: Not compliant'));
  t.true(r.text.includes('Judged as of'));
  t.regex(r.text, /data:image\/webp;base64,/, 'the agency logo is inline');
  t.regex(r.text, /data:image\/png;base64,/, 'cited pages are drawn inline');
  t.regex(r.text, /alt="Lease page \d+, the lines the values were read from"/, 'a lease clause is cropped from its page');
  t.regex(r.text, /alt="Policy page \d+, the lines the values were read from"/, 'so is the policy’s evidence');
  t.true(r.text.includes('--brand:#0f766e'));

  const none = await svc.request('GET', `/api/analyses/${analysisId}/report`);
  t.is(none.status, 401);
  t.is(none.body.error, 'unauthorized');
  for (const other of [otherKey, liveKey]) {
    const hidden = await svc.request('GET', `/api/analyses/${analysisId}/report`, { headers: { 'x-api-key': other } });
    t.is(hidden.status, 404);
    t.is(hidden.body.error, 'not_found');
  }
  const bad = await svc.request('GET', `/api/analyses/${analysisId}/report?format=docx`, { headers: { 'x-api-key': key } });
  t.is(bad.status, 400);
  t.is(bad.body.error, 'bad_request');
  const unknown = await svc.request('GET', `/api/analyses/00000000-0000-4000-8000-000000000000/report`, { headers: { 'x-api-key': key } });
  t.is(unknown.status, 404);
});

test.serial('a report link works without credentials until it is revoked; a changed or expired token is refused', async (t) => {
  const made = await makeLink();
  t.is(made.status, 201, made.text);
  t.is(made.body.analysis_id, analysisId);
  t.true(made.body.url.startsWith(`${svc.url}/api/reports/`));
  const ttl = Date.parse(made.body.expires_at) - Date.now();
  t.true(ttl > svc.cfg.REPORT_LINK_TTL_SECONDS * 1000 - 120_000 && ttl <= svc.cfg.REPORT_LINK_TTL_SECONDS * 1000, 'the lifetime is the setting');

  const open = await fetch(made.body.url);
  t.is(open.status, 200);
  t.true((await open.text()).includes('General Liability'));

  const token = made.body.url.split('/api/reports/')[1] as string;
  const changed = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
  const forged = await svc.request('GET', `/api/reports/${changed}`);
  t.is(forged.status, 403);
  t.is(forged.body.error, 'forbidden');
  const past = signReportToken(reportLinkKey(svc.deps.secretKey), made.body.id, Math.floor(Date.now() / 1000) - 5);
  const expired = await svc.request('GET', `/api/reports/${past}`);
  t.is(expired.status, 403);
  t.is(expired.body.error, 'link_expired');

  const stranger = await svc.request('DELETE', `/api/analyses/${analysisId}/report-links/${made.body.id}`, { headers: { 'x-api-key': otherKey } });
  t.is(stranger.status, 404, 'another agency cannot revoke it');
  t.is((await fetch(made.body.url)).status, 200);
  const revoked = await svc.request('DELETE', `/api/analyses/${analysisId}/report-links/${made.body.id}`, { headers: { 'x-api-key': key } });
  t.is(revoked.status, 200, revoked.text);
  t.truthy(revoked.body.revoked_at);
  const after = await svc.request('GET', `/api/reports/${token}`);
  t.is(after.status, 403);
  t.is(after.body.error, 'link_revoked');
  const page = await fetch(made.body.url, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
  t.is(page.status, 403);
  t.regex(page.headers.get('content-type')!, /^text\/html/);
  t.true((await page.text()).includes('This link was withdrawn'), 'a person’s browser gets a page');

  const elsewhere = await svc.request('POST', `/api/analyses/${analysisId}/report-links`, { headers: { 'x-api-key': otherKey } });
  t.is(elsewhere.status, 404);
});

test.serial('a link opened too often from one address is refused with 429 and Retry-After', async (t) => {
  const made = await makeLink();
  for (let i = 0; i < 5; i++) t.is((await svc.request('GET', `/api/reports/${made.body.url.split('/api/reports/')[1]}`)).status, 200);
  const sixth = await svc.request('GET', `/api/reports/${made.body.url.split('/api/reports/')[1]}`);
  t.is(sixth.status, 429);
  t.is(sixth.body.error, 'rate_limited');
  t.truthy(sixth.headers.get('retry-after'));
});

browserTest('the report from a signed link in Chromium, no credentials: every check, axe clean, readable on a phone', async (t) => {
  const made = await makeLink();
  t.is(made.status, 201);
  for (const [name, viewport] of Object.entries(VIEWPORTS)) {
    const context = await browser!.newContext({ viewport });
    const page = await context.newPage();
    const r = await page.goto(made.body.url);
    t.is(r?.status(), 200);
    t.is(await page.locator('table.report-checks tbody tr').count(), 15);
    for (const f of comparisonFields) t.true(await page.getByRole('rowheader', { name: f, exact: true }).isVisible(), `${name}: ${f}`);
    t.true(await page.getByRole('heading', { name: 'Overall: Not compliant' }).isVisible());
    t.true((await page.getByRole('checkbox').count()) > 0, 'the recommendations are a checklist');
    t.true(await page.locator('.site-header__logo').isVisible());
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    t.true(overflow <= 0, `${name}: no sideways scrolling (${overflow}px)`);
    assertAccessible(t, await axe(page), `report (${name})`);
    await page.screenshot({ path: path.join(screens, `report-${name}.png`), fullPage: true });
    await context.close();
  }
});

browserTest('the PDF is the page printed by Chromium, on A4 and US letter, with every check’s name in its text', async (t) => {
  const made = await makeLink();
  for (const [paper, size] of [
    ['a4', [595, 842]],
    ['letter', [612, 792]],
  ] as const) {
    const res = await fetch(`${made.body.pdf_url}&paper=${paper}`);
    t.is(res.status, 200);
    t.is(res.headers.get('content-type'), 'application/pdf');
    t.is(res.headers.get('x-report-renderer'), 'chromium');
    const pdf = Buffer.from(await res.arrayBuffer());
    const doc = await PDFDocument.load(pdf);
    const { width, height } = doc.getPage(0).getSize();
    // Chromium rounds the paper to whole CSS pixels (A4: 595.92 × 842.88 points).
    t.true(Math.abs(width - size[0]) < 2 && Math.abs(height - size[1]) < 2, `${paper}: ${width} × ${height} points`);
    const text = pdfText(pdf);
    for (const f of comparisonFields) t.true(text.includes(f), `${paper}: pdftotext finds ${f}`);
    t.true(text.includes('Harbor Lane Insurance'));
    t.false(text.includes('Download PDF'), 'the page’s PDF button is not printed');
    if (paper === 'a4') fs.writeFileSync(path.join(screens, 'report-a4.pdf'), pdf);
  }
  // The signed-in API answers the same PDF.
  const direct = await fetch(`${svc.url}/api/analyses/${analysisId}/report?format=pdf`, { headers: { 'x-api-key': key } });
  t.is(direct.status, 200);
  t.is(direct.headers.get('content-type'), 'application/pdf');
});

browserTest('the dashboard’s lease checks list each analysis with a link to its report', async (t) => {
  const link = await svc.request('POST', `/v1/agents/${ownerId}/dashboard-link`, { token: oauthToken });
  t.is(link.status, 200, link.text);
  const context = await browser!.newContext({ viewport: VIEWPORTS.desktop });
  const page = await context.newPage();
  await page.goto(link.body.data.url);
  await page.goto(`${svc.url}/dashboard/test/analyses`);
  t.true(await page.getByRole('link', { name: 'Lease checks' }).isVisible());
  assertAccessible(t, await axe(page), 'dashboard lease checks');
  await page.screenshot({ path: path.join(screens, 'dashboard-analyses.png'), fullPage: true });
  await page.getByRole('link', { name: /lease\.pdf/ }).click();
  await page.waitForURL(`**/dashboard/test/analyses/${analysisId}/report`);
  t.is(await page.locator('table.report-checks tbody tr').count(), 15);
  const live = await page.goto(`${svc.url}/dashboard/live/analyses/${analysisId}/report`);
  t.is(live?.status(), 404, 'a test analysis is not in the live dashboard');
  await context.close();
});
