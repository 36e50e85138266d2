// `svc eval --labels` keeps a history (0028): reviewed extractions exported by `svc analysts export-labels` are
// scored by the real command twice, each run recorded in app_analyst through the configured database and named in
// the output; the HTML report draws one chart per field (inline SVG with title and description, the figures in a
// table), with the calibration reviewers' corrections show on real traffic; `--no-history` records nothing; an
// analyst token reads the history and the corrections of the sharing agency over /graphql, never the private one's.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { exportLabels } from '../../bin/commands/analysts.ts';
import { createOperatorToken } from '../../db/queries/operators.ts';
import { hashToken, newToken } from '../../lib/secrets.ts';
import { closeDocumentPools } from '../../pipelines/extraction/index.ts';
import { assertAccessible, axe, browserUnavailable, launchBrowser } from '../helpers/browser.ts';
import { extractedCoi, sharingAndPrivate } from '../helpers/extraction.ts';
import { runSvc } from '../helpers/cli.ts';
import { startService, type TestService } from '../helpers/server.ts';

let svc: TestService;
let out: string;
test.before(async () => {
  svc = await startService();
  out = fs.mkdtempSync(path.join(os.tmpdir(), 'eval-history-'));
});
test.after.always(async () => {
  await closeDocumentPools();
  await svc?.close();
  if (out) fs.rmSync(out, { recursive: true, force: true });
});

const svcEval = (args: string[], databaseUrl?: string) => runSvc(svc, ['eval', ...args], databaseUrl);

test('svc eval --labels records each run in the history, the report charts it per field, and analysts read history and corrections over GraphQL', async (t) => {
  t.timeout(300_000);
  const { a, b, ownerA, ownerB, review } = await sharingAndPrivate(svc);
  const xa = await extractedCoi(svc, a);
  const xb = await extractedCoi(svc, b);
  await review(ownerA, xa, '/certificate/producer', 'confirmed');
  await review(ownerA, xa, '/certificate/insured', 'corrected', 'Someone Else Inc');
  await review(ownerA, xa, '/certificate/coverages/0/each_occurrence', 'confirmed');
  await review(ownerB, xb, '/certificate/insured', 'corrected', 'Private Corrected Name');
  const confidence = await svc.tdb.db.owner.query<{ confidence: string }>(
    `select confidence from app_public.field_reviews where extraction_id = $1 and pointer = '/certificate/insured'`,
    [xa],
  );
  t.true(Number(confidence.rows[0].confidence) >= 0.9, 'the engine was sure of the insured it read');

  const n = await exportLabels(svc.tdb.db.owner, svc.deps.blobs, { since: new Date(Date.now() - 86_400_000), out, mode: 'test' });
  t.deepEqual(n, { labels: 2, documents: 1, skipped: 0 });
  const report = path.join(out, 'report.html');
  const args = ['--labels', path.join(out, 'labels'), '--docs', path.join(out, 'docs'), '--only', `agency-${a.agencyId}/`, '--html', report];

  const ids: number[] = [];
  for (let i = 0; i < 2; i++) {
    const r = await svcEval(args);
    t.is(r.code, 0, r.stderr);
    const m = /^history: run (\d+) recorded in app_analyst\.eval_history of (\S+)$/m.exec(r.stdout);
    t.truthy(m, r.stdout);
    ids.push(Number(m![1]));
    const db = new URL(svc.tdb.url);
    t.is(m![2], `postgres://${db.username}@${db.host}${db.pathname}`, 'the database is named, without its password');
    if (db.password) t.false(r.stdout.includes(db.password));
  }
  t.true(ids[1] > ids[0]);
  const o = svc.tdb.db.owner;
  const runs = await o.query('select id, documents, compared, correct, high_confidence, high_confidence_wrong from app_analyst.eval_history_runs order by id');
  t.deepEqual(
    runs.rows.map((r) => Number(r.id)),
    ids,
  );
  const fields = await o.query<{ field: string; kind: string; compared: number; correct: number }>(
    'select field, kind, compared, correct from app_analyst.eval_history where run_id = $1 order by field',
    [ids[1]],
  );
  const of = (field: string) => fields.rows.find((f) => f.field === field);
  t.deepEqual(of('certificate.insured'), { field: 'certificate.insured', kind: 'acord25', compared: 1, correct: 0 }, 'the reviewer’s correction is the truth');
  t.deepEqual(of('certificate.producer'), { field: 'certificate.producer', kind: 'acord25', compared: 1, correct: 1 });
  t.deepEqual(of('coverage.each_occurrence'), { field: 'coverage.each_occurrence', kind: 'acord25', compared: 1, correct: 1 });
  t.like(runs.rows[1], {
    documents: 1,
    compared: fields.rows.reduce((n, f) => n + f.compared, 0),
    correct: fields.rows.reduce((n, f) => n + f.correct, 0),
  });

  // The report: one chart per field, each with a title and a description of its figures, and the figures as text.
  const html = fs.readFileSync(report, 'utf8');
  const charts = [...html.matchAll(/<svg class="chart"[^>]*>[\s\S]*?<\/svg>/g)].map((m) => m[0]);
  t.is(charts.length, fields.rows.length, 'one chart per field');
  for (const f of fields.rows) {
    const chart = charts.find((c) => c.includes(`<title id="chart-`) && c.includes(`>${f.field}: accuracy and calibration over 2 recorded runs</title>`));
    t.truthy(chart, f.field);
    const acc = `${((f.correct / f.compared) * 100).toFixed(1)}%`;
    t.regex(
      chart!,
      new RegExp(`<desc id="chart-\\d+-desc">${f.field.replace('.', '\\.')}, 2 runs: accuracy from ${acc.replace('.', '\\.')} .*to ${acc.replace('.', '\\.')}`),
    );
    t.regex(chart!, /role="img" aria-labelledby="chart-\d+-title chart-\d+-desc"/);
    t.is((chart!.match(/<circle /g) ?? []).length, 3, 'two runs and the legend');
  }
  t.regex(
    html,
    new RegExp(
      `<tr><th scope="row">certificate\\.insured</th><td>run ${ids[1]}</td><td>[^<]+ UTC</td><td class="n">0\\.0%</td><td class="n">0 / 1</td><td class="n">100\\.0% \\(1 / 1\\)</td></tr>`,
    ),
  );
  t.regex(
    html,
    /certificate\.insured<\/b><\/figcaption><svg[\s\S]*?<\/svg><p class="traffic">On real traffic \(reviews of agencies that share them, last 12 weeks\): 1 of 1 values at confidence 0\.9 or more corrected \(100\.0%\)/,
  );
  t.false(html.includes('Private Corrected Name'));
  t.notRegex(html, /<script|https?:\/\/(?!www\.w3\.org\/2000\/svg)/, 'self-contained: no script, nothing fetched');

  // --no-history scores without recording, and says so.
  const quiet = await svcEval([...args.slice(0, -2), '--no-history']);
  t.is(quiet.code, 0, quiet.stderr);
  t.regex(quiet.stdout, /^history: not recorded \(--no-history\)$/m);
  t.is((await o.query('select count(*)::int as n from app_analyst.eval_history_runs')).rows[0].n, 2);
  // A configured database that cannot be reached: the scores are printed, the failure named, exit 1.
  const refused = await svcEval([...args.slice(0, -2), '--json'], 'postgres://nobody@127.0.0.1:1/none');
  t.is(refused.code, 1, refused.stderr);
  t.like(JSON.parse(refused.stdout).history, { recorded: false, run_id: null });
  t.regex(refused.stderr, /history: not recorded in postgres:\/\/nobody@127\.0\.0\.1:1\/none: .+\n\(use --no-history to score without recording\)/);
  t.is((await o.query('select count(*)::int as n from app_analyst.eval_history_runs')).rows[0].n, 2);
  const misplaced = await svcEval(['--no-history']);
  t.is(misplaced.code, 2);
  t.regex(misplaced.stderr, /--no-history needs --labels/);

  // An analyst over /graphql: the history, and the sharing agency's corrections only.
  const analyst = newToken('ops_', 32);
  await createOperatorToken(o, 'Ana', 'analyst', hashToken(analyst));
  const q = await svc.request('POST', '/graphql', {
    token: analyst,
    json: {
      query: `{ allAppAnalystEvalHistoryRuns(first: 10) { nodes { id compared correct } }
               allAppAnalystCorrections(first: 100) { nodes { agencyId field kind action newValue wasWrong } }
               allAppAnalystReviewCalibrations(first: 100) { nodes { field highConfidence highConfidenceWrong } } }`,
    },
  });
  t.is(q.status, 200, q.text);
  t.falsy(q.body.errors, JSON.stringify(q.body.errors));
  t.is(q.body.data.allAppAnalystEvalHistoryRuns.nodes.length, 2);
  const corrections = q.body.data.allAppAnalystCorrections.nodes;
  t.true(
    corrections.every((c: { agencyId: string }) => Number(c.agencyId) === a.agencyId),
    JSON.stringify(corrections),
  );
  t.like(
    corrections.find((c: { field: string }) => c.field === 'certificate.insured'),
    { kind: 'acord25', action: 'corrected', newValue: 'Someone Else Inc', wasWrong: true },
  );
  t.false(JSON.stringify(q.body).includes('Private Corrected Name'));

  // A look at the report in Chromium: axe, and a screenshot to read.
  if (browserUnavailable) return t.log(browserUnavailable);
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`file://${report}`);
    assertAccessible(t, await axe(page), 'eval report');
    const shot = path.join(os.tmpdir(), 'eval-report-screens');
    fs.mkdirSync(shot, { recursive: true });
    await page.locator('#history').scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(shot, 'history.png') });
    await page.screenshot({ path: path.join(shot, 'report.png'), fullPage: true });
    t.log(`screenshots in ${shot}`);
  } finally {
    await browser.close();
  }
});
