// Residential leases are scored unseen: randomised variants (fixtures/lease/specs.ts residentialVariants) of
// the renters clause, its personal-liability minimum, the landlord as interested party or additional insured,
// a declarations page accepted, clause order and layout, rendered to PDFs and run through the checker. Every
// fact and status right, and never a pass where the rules give a fail or a warning.
import test from 'ava';
import { analyzePair, comparisonFields } from '../../../pipelines/lease/index.ts';
import { scoreAnalysis } from '../../../pipelines/lease/evaluate.ts';
import { closeDocumentPools } from '../../../pipelines/documents/index.ts';
import type { PairSpec } from '../../../fixtures/lease/specs.ts';
import { residentialVariants, residentialForms, residentialWordings, residentialBlanks } from '../../../fixtures/lease/residential.ts';
import { renderPair } from '../../../fixtures/lease/generate.ts';

test.after.always(() => closeDocumentPools());

const SEEDS = [1, 2, 3];
const PER_SEED = 8;

test('the variants are seeded and varied: same seed same pairs, and together they ask for and break every residential rule', (t) => {
  t.deepEqual(residentialVariants(5, 4), residentialVariants(5, 4));
  t.notDeepEqual(residentialVariants(5, 4), residentialVariants(6, 4));
  const all = SEEDS.flatMap((s) => residentialVariants(s, PER_SEED));
  t.true(new Set(all.map((p) => p.lease.layout)).size >= 4);
  t.true(new Set(all.map((p) => p.lease.insurance[0])).size >= 10);
  t.true(all.some((p) => p.expect['General Liability'] === 'fail'));
  t.true(all.some((p) => p.expect['Interested Party'] === 'warning' || p.expect['Additional Insured'] === 'warning'));
  t.true(all.some((p) => p.expect['Interested Party'] === 'fail' || p.expect['Additional Insured'] === 'fail'));
  t.true(all.some((p) => Object.keys(p.expect).length === 0));
});

test('the forms are seeded and varied: every way of introducing the parties and stating the term, ticked and declined boxes', (t) => {
  t.deepEqual(residentialForms(5, 4), residentialForms(5, 4));
  const all = SEEDS.flatMap((s) => residentialForms(s, PER_SEED));
  t.true(new Set(all.map((p) => p.lease.form?.intro)).size >= 5);
  t.true(new Set(all.map((p) => p.lease.form?.term)).size >= 4);
  t.true(all.some((p) => /\[X\] is \[ \] is not/.test(p.lease.insurance[0])));
  t.true(all.some((p) => p.expect['General Liability'] === 'fail'));
});

test('the wordings are seeded and varied: formal and association preambles, premises cues, ordinal and checkbox terms', (t) => {
  t.deepEqual(residentialWordings(5, 4), residentialWordings(5, 4));
  const all = SEEDS.flatMap((s) => residentialWordings(s, PER_SEED));
  t.true(new Set(all.map((p) => p.lease.form?.intro)).size >= 5);
  t.true(new Set(all.map((p) => p.lease.form?.premises)).size >= 3);
  t.true(new Set(all.map((p) => p.lease.form?.term)).size >= 3);
  t.true(all.some((p) => /must be listed as/.test(p.lease.insurance.join(' '))));
  // The forms of fixtures/lease (seed 29) are drawn as before: their files on disk stay theirs.
  t.true(residentialForms(29, 6).every((p) => p.name.startsWith('res_form_29_')));
});

test("the blanks are seeded and varied: captions after blanks, an owner's agent or office, qualified labels, boxes before letters", (t) => {
  t.deepEqual(residentialBlanks(5, 4), residentialBlanks(5, 4));
  const all = SEEDS.flatMap((s) => residentialBlanks(s, PER_SEED));
  t.true(new Set(all.map((p) => p.lease.form?.intro)).size >= 3);
  t.true(new Set(all.map((p) => p.lease.form?.premises)).size >= 2);
  t.true(new Set(all.map((p) => p.lease.form?.term)).size >= 2);
  t.true(all.some((p) => /does not require/.test(p.lease.insurance.join(' '))));
});

async function scorePairs(t: import('ava').ExecutionContext, pairs: PairSpec[]) {
  const misses: string[] = [];
  let falsePasses = 0;
  for (const p of pairs) {
    const { files, expected } = await renderPair(p);
    const bytes = Object.fromEntries(files);
    const r = await analyzePair(bytes['lease.pdf'], bytes['insurance.pdf'], { asOf: expected.as_of });
    const s = scoreAnalysis(expected, r);
    for (const m of s.misses) misses.push(`${p.name} ${m.what}: expected ${JSON.stringify(m.expected)} got ${JSON.stringify(m.got)}`);
    for (const f of comparisonFields) if (expected.statuses[f] !== 'pass' && r.comparison.find((c) => c.field === f)?.status === 'pass') falsePasses++;
  }
  t.deepEqual(misses, []);
  t.is(falsePasses, 0);
}

for (const seed of SEEDS) {
  test(`residential variants, seed ${seed}: every fact and status right, no false pass`, (t) => scorePairs(t, residentialVariants(seed, PER_SEED)));
  test(`residential forms, seed ${seed}: every fact and status right, no false pass`, (t) => scorePairs(t, residentialForms(seed, PER_SEED)));
  test(`residential wordings, seed ${seed}: every fact and status right, no false pass`, (t) => scorePairs(t, residentialWordings(seed, PER_SEED)));
  test(`residential blanks, seed ${seed}: every fact and status right, no false pass`, (t) => scorePairs(t, residentialBlanks(seed, PER_SEED)));
}
