// The generated pairs of fixtures/lease end to end through the pipeline (text pairs here; the scanned and
// photographed ones run through HTTP), every value grounded on its page, and the CLI.
import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { analyzePair, readForAnalysis, comparisonFields, type AnalysisResult } from '../../../pipelines/lease/index.ts';
import { scoreAnalysis, type LeaseExpected } from '../../../pipelines/lease/evaluate.ts';
import { closeDocumentPools, type DocumentText } from '../../../pipelines/documents/index.ts';
import { indexPages, ground, normaliseText } from '../../../pipelines/extraction/index.ts';
import { findLeaseCases } from '../../../bin/commands/eval_lease.ts';

test.after.always(() => closeDocumentPools());

const dir = path.resolve('fixtures/lease');
const cases = findLeaseCases(dir);
const expectedOf = (c: { expected: string }) => JSON.parse(fs.readFileSync(c.expected, 'utf8')) as LeaseExpected;
const bytes = (f: string) => new Uint8Array(fs.readFileSync(f));

test('at least 16 pairs, residential and commercial, with scanned and photo variants, a cancelled policy and a binder', (t) => {
  t.true(cases.length >= 16);
  t.true(cases.some((c) => c.name.startsWith('com_')) && cases.some((c) => c.name.startsWith('res_')));
  t.true(cases.some((c) => /scan/.test(c.name) && c.lease.includes('scan')));
  t.true(cases.some((c) => c.insurance.endsWith('.jpg')));
  t.true(cases.some((c) => expectedOf(c).statuses['Policy Status'] === 'fail' && c.name.includes('cancelled')));
  t.true(cases.some((c) => expectedOf(c).statuses['Policy Status'] === 'warning' && c.name.includes('binder')));
});

test('together the expected results exercise every status each check can give', (t) => {
  // Statuses a rule cannot produce (SPEC rules: these checks have no warning) are not required.
  const noWarning = new Set(['General Liability', 'Workers Compensation', 'Umbrella/Excess Liability', 'Professional Liability']);
  for (const f of comparisonFields) {
    const seen = new Set(cases.map((c) => expectedOf(c).statuses[f]));
    for (const s of ['pass', 'fail', ...(noWarning.has(f) ? [] : ['warning'])]) t.true(seen.has(s), `${f} ${s}`);
  }
  const overall = new Set(
    cases.map((c) => {
      const s = Object.values(expectedOf(c).statuses);
      return s.includes('fail') ? 'fail' : s.includes('warning') ? 'warning' : 'pass';
    }),
  );
  t.is(overall.size, 3);
});

/** Every value with a `_page` is really on that page; every comparison value's page holds its evidence. */
function assertGrounded(t: import('ava').ExecutionContext, r: AnalysisResult, docs: { lease: DocumentText; insurance: DocumentText }, name: string) {
  for (const side of ['lease', 'insurance'] as const) {
    const index = indexPages(docs[side].pages);
    const sect = r[side] as Record<string, string | number | null>;
    for (const [k, v] of Object.entries(sect)) {
      if (k.endsWith('_page') || v === null) continue;
      const page = sect[`${k}_page`] as number;
      t.truthy(page, `${name} ${side}.${k} has a page`);
      const text = docs[side].pages.find((p) => p.page === page)?.text ?? '';
      // Dates are reported as "Jan 1, 2026": check the date itself is on the page.
      const value = /^[A-Z][a-z]{2} \d{1,2}, \d{4}$/.test(String(v)) ? new Date(`${v} UTC`).toISOString().slice(0, 10) : v;
      t.true(ground({ pointer: '/x', value, page, text, confidence: 1, source: 'rules' }, index).ok, `${name} ${side}.${k}=${v} on page ${page}`);
    }
  }
  for (const c of r.comparison) {
    if (c.leaseRequired_page !== null && c.leaseClause) {
      const text = normaliseText(docs.lease.pages.find((p) => p.page === c.leaseRequired_page)?.text ?? '');
      const words = normaliseText(c.leaseClause)
        .split(' ')
        .filter((w) => w.length > 2);
      t.true(words.filter((w) => text.includes(w)).length / words.length > 0.8, `${name} ${c.field} lease clause on page ${c.leaseRequired_page}`);
    }
    if (c.insuranceCoverage_page !== null)
      t.truthy(
        docs.insurance.pages.find((p) => p.page === c.insuranceCoverage_page),
        `${name} ${c.field} insurance page exists`,
      );
  }
}

for (const c of cases.filter((x) => !/scan|photo/.test(x.name))) {
  test(`fixture ${c.name}: facts, pages and the 15 statuses as expected; every value grounded`, async (t) => {
    const e = expectedOf(c);
    const r = await analyzePair(bytes(c.lease), bytes(c.insurance), { asOf: e.as_of, read: { ocr: false, pdfTimeoutMs: 300_000 } });
    const s = scoreAnalysis(e, r);
    t.deepEqual(s.misses, []);
    t.deepEqual(
      r.comparison.map((i) => i.field),
      [...comparisonFields],
    );
    const fails = r.comparison.filter((i) => i.status !== 'pass').length;
    t.is(r.recommendations.length > 0, fails > 0);
    t.is(r.summary.pass + r.summary.fail + r.summary.warning, 15);
    t.is(r.summary.status, r.summary.fail ? 'non_compliant' : r.summary.warning ? 'needs_review' : 'compliant');
    assertGrounded(
      t,
      r,
      {
        lease: await readForAnalysis(bytes(c.lease), { ocr: false, pdfTimeoutMs: 300_000 }),
        insurance: await readForAnalysis(bytes(c.insurance), { ocr: false, pdfTimeoutMs: 300_000 }),
      },
      c.name,
    );
  });
}

test('recommendations are concrete: amounts for a low limit, the landlord for an endorsement', async (t) => {
  const pick = (n: string) => cases.find((c) => c.name === n)!;
  const low = pick('res_low_liability');
  const r = await analyzePair(bytes(low.lease), bytes(low.insurance), { asOf: expectedOf(low).as_of, read: { ocr: false } });
  t.true(r.recommendations.includes('Ask the tenant to raise liability coverage from $100,000 to $300,000.'));
  const ai = pick('res_ai_only_interested');
  const r2 = await analyzePair(bytes(ai.lease), bytes(ai.insurance), { asOf: expectedOf(ai).as_of, read: { ocr: false } });
  t.true(r2.recommendations.some((x) => /^Request an endorsement naming Oak Street Properties LLC as additional insured/.test(x)));
});

test('svc analyze prints the result; a refused file exits non-zero with its §7.2 code', (t) => {
  const c = cases.find((x) => x.name === 'res_compliant')!;
  const node = process.execPath;
  const ok = spawnSync(node, ['bin/svc.ts', 'analyze', '--lease', c.lease, '--insurance', c.insurance, '--as-of', '2026-02-15'], {
    encoding: 'utf8',
    env: { ...process.env, OCR_ENGINE: 'tesseract.js' },
  });
  t.is(ok.status, 0, ok.stderr);
  const r = JSON.parse(ok.stdout) as AnalysisResult;
  t.is(r.summary.status, 'compliant');
  t.is(r.lease.leaseStart, 'Feb 1, 2026');
  const tmp = path.join(fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'lease-')), 'notes.txt');
  fs.writeFileSync(tmp, 'just some text, not a document');
  const bad = spawnSync(node, ['bin/svc.ts', 'analyze', '--lease', tmp, '--insurance', c.insurance], { encoding: 'utf8' });
  t.not(bad.status, 0);
  t.is(JSON.parse(bad.stdout).error, 'bad_request');
  const missing = spawnSync(node, ['bin/svc.ts', 'analyze', '--lease', c.lease], { encoding: 'utf8' });
  t.is(missing.status, 2);
});
