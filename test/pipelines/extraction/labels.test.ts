import test from 'ava';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { emptyExtractedData } from '../../../pipelines/extraction/schema.ts';
import { scoreAgainstLabel, sameAs, reviewerName, tallyByField } from '../../../pipelines/extraction/labels.ts';
import { closeDocumentPools } from '../../../pipelines/extraction/index.ts';
import { runLabelled, summarise, formatReport } from '../../../bin/commands/eval_labels.ts';
import { writeHtmlReport } from '../../../bin/commands/eval_report.ts';
import { fixturesDir } from '../documents/helpers.ts';

test.after.always(() => closeDocumentPools());

test('names compare as a reviewer reads them: case, punctuation, & and legal suffixes do not matter; other words do', (t) => {
  t.true(sameAs('name', 'OWNERS INS. CO.', 'Owners Ins Co'));
  t.true(sameAs('name', 'Acme Roofing, LLC', 'ACME ROOFING'));
  t.true(sameAs('name', 'Smith & Sons Inc.', 'Smith and Sons'));
  t.true(sameAs('name', 'The Hartford', 'Hartford'));
  t.false(sameAs('name', 'Allstate Vehicle and Property Insurance Company', 'Allstate Insurance Company'));
  t.false(sameAs('name', 'Scott Butler Homes', 'in lieu of such endorsement(s).'));
  t.is(reviewerName('Erie Insurance Company'), 'erie insurance');
});

test('numbers, ids, dates and empties', (t) => {
  t.true(sameAs('money', 1000000, '$1,000,000'));
  t.false(sameAs('money', 1000000, 100000));
  t.true(sameAs('id', '830 935 999', '830935999'));
  t.true(sameAs('id', 'SCB-GL-000038834', 'scb gl 000038834'));
  t.false(sameAs('id', 'A00 0003333', 'AOO 0003333'));
  t.true(sameAs('date', '2024-11-05', '2024-11-05'));
  t.false(sameAs('date', '2024-11-05', '2024-11-06'));
  // A redacted value (null) is right only when nothing was extracted.
  t.true(sameAs('name', null, null));
  t.false(sameAs('id', null, '12345'));
  t.false(sameAs('id', '12345', null));
  t.true(sameAs('address', '109 McNickle Drive, Smyrna, TN 37167-3620', '109 MCNICKLE DR SMYRNA TN 37167'));
  t.true(sameAs('names', ['Kia Motors Finance', 'NISSAN MOTOR ACCEPT CORP'], ['Nissan Motor Accept Corp.', 'KIA MOTORS FINANCE']));
  t.false(sameAs('names', ['Kia Motors Finance'], []));
});

test('a declarations label is scored field by field, a person by first and last name', (t) => {
  const data = emptyExtractedData('homeowners');
  data.policy.provider = 'ALLSTATE VEHICLE AND PROPERTY INSURANCE CO.';
  data.policy.policy_number = '999';
  data.policy.effective_date = '2021-06-30';
  data.policyholder.first_name = 'JOEL';
  data.policyholder.last_name = 'ROGERS';
  data.property = {
    address: null,
    dwelling: 304306,
    other_structures: null,
    personal_property: 1,
    loss_of_use: null,
    personal_liability: 200000,
    medical_payments: null,
    deductible: null,
  };
  data.citations['/policy/provider'] = { page: 3, text: 'x', confidence: 0.9, source: 'rules' };
  const label = {
    doc_kind: 'home_dec',
    policy: { provider: 'Allstate Vehicle and Property Insurance Company', policy_number: null, effective_date: '2021-06-30', expiration_date: '2022-06-30' },
    policyholder: { first_name: 'Joel', last_name: 'Rogers', organization: null },
    liability_limit: 200000,
    property: { dwelling: 304306, personal_property: 228230 },
    interested_parties: [],
    pages: { provider: 3 },
  };
  const s = scoreAgainstLabel(label, data);
  const by = Object.fromEntries(s.comparisons.map((c) => [c.where, c]));
  t.is(s.docKind, 'home_dec');
  t.true(by['policy.provider'].ok);
  t.is(by['policy.provider'].gotPage, 3);
  t.is(by['policy.provider'].expectedPage, 3);
  t.false(by['policy.policy_number'].ok, 'a value where the label says redacted is a miss');
  t.true(by['policy.effective_date'].ok);
  t.false(by['policy.expiration_date'].ok);
  t.true(by.policyholder.ok);
  t.true(by.liability_limit.ok);
  t.true(by['property.dwelling'].ok);
  t.false(by['property.personal_property'].ok);
  t.true(by.interested_parties.ok);
  const tally = tallyByField(s.comparisons);
  t.deepEqual(tally['policy.provider'], { n: 1, ok: 1 });
});

test('a certificate label: boxes, insurers by letter, coverage rows matched by type; impossible empty limits are not counted', (t) => {
  const data = emptyExtractedData('certificate');
  data.certificate = {
    producer: 'United Solutions Inc',
    insured: 'Fernando A. Hernandez Arevalo DBA: Hernandez Construction',
    certificate_holder: 'Proof of coverage',
    insurers: [{ letter: 'A', name: 'Obsidian Specialty Insurance Co.', naic: '16871' }],
    coverages: [
      {
        type: 'workers_compensation',
        insurer_letter: 'B',
        policy_number: '6JUB6R15812123',
        effective_date: '2023-11-05',
        expiration_date: '2024-11-05',
        each_occurrence: null,
        general_aggregate: null,
        combined_single_limit: null,
        umbrella_each_occurrence: null,
        wc_statutory: true,
        el_each_accident: 1000000,
        additional_insured: null,
        subrogation_waived: false,
      },
      {
        type: 'general_liability',
        insurer_letter: 'A',
        policy_number: 'SCB-GL-000038834',
        effective_date: '2023-11-05',
        expiration_date: '2024-11-05',
        each_occurrence: 1000000,
        general_aggregate: 2000000,
        combined_single_limit: 5,
        umbrella_each_occurrence: null,
        wc_statutory: null,
        el_each_accident: null,
        additional_insured: true,
        subrogation_waived: false,
      },
    ],
  };
  const label = {
    doc_kind: 'acord25',
    producer: 'United Solutions Inc',
    insured: 'Fernando A. Hernandez Arevalo DBA: Hernandez Construction',
    certificate_holder: 'Scott Butler Homes',
    insurers: { A: 'Obsidian Specialty Insurance Co.', B: 'Travelers Property Casualty Company of America' },
    coverages: [
      {
        type: 'commercial_general_liability',
        insurer_letter: 'A',
        policy_number: 'SCB-GL-000038834',
        effective_date: '2023-11-05',
        expiration_date: '2024-11-05',
        each_occurrence: 1000000,
        general_aggregate: 2000000,
        combined_single_limit: null,
        umbrella_each_occurrence: null,
        additional_insured: true,
        subrogation_waived: false,
      },
    ],
  };
  const s = scoreAgainstLabel(label, data);
  const by = Object.fromEntries(s.comparisons.map((c) => [c.where, c]));
  t.true(by.producer.ok);
  t.true(by.insured.ok);
  t.false(by.certificate_holder.ok);
  t.true(by['insurers.A'].ok);
  t.false(by['insurers.B'].ok);
  t.true(by['coverages[0].policy_number'].ok, 'rows are matched by type, not by position');
  t.is(by['coverages[0].policy_number'].pointer, '/certificate/coverages/1/policy_number');
  t.false(by['coverages[0].combined_single_limit'].ok, 'an invented limit is a miss');
  t.false('coverages[0].umbrella_each_occurrence' in by, 'an empty impossible limit is not scored');
});

test('svc eval --labels over a labelled fixture: figures, misses with pages, and an HTML report with crops', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'labels-'));
  fs.mkdirSync(path.join(dir, 'labels'));
  fs.copyFileSync(path.join(fixturesDir, 'home_granite.pdf'), path.join(dir, 'home_granite.pdf'));
  fs.writeFileSync(
    path.join(dir, 'labels', 'home_granite.json'),
    JSON.stringify({
      file: 'home_granite.pdf',
      doc_kind: 'home_dec',
      entity_type: 'home_policy',
      policy: { provider: 'Granite State Insurance Company', policy_number: 'HO3-552-0193', effective_date: '2025-02-01', expiration_date: '2027-02-01' },
      policyholder: { first_name: 'Emily', last_name: 'Carter', organization: null },
      pages: { provider: 1, effective_date: 1 },
    }),
  );
  const runs = await runLabelled(path.join(dir, 'labels'), dir);
  t.is(runs.length, 1);
  const s = summarise(runs);
  t.deepEqual(s.fields['policy.provider'], { n: 1, ok: 1 });
  t.deepEqual(s.fields['policy.expiration_date'], { n: 1, ok: 0 });
  t.is(s.scan.n, 0);
  // The wrong expiration date is a confident value (a labelled date): calibration counts it among the >= 0.9.
  t.is(s.calibration.high.n + s.calibration.low.n, 5);
  t.deepEqual(s.calibration.high, { n: 4, ok: 3 });
  const text = formatReport(runs, dir);
  t.regex(text, /values cited with confidence >= 0\.9: +\d+\.\d% right/);
  t.regex(text, /policy\.expiration_date: expected "2027-02-01" got "2026-02-01"\s+\(p\.1 \/ p\.1\)/);
  const html = path.join(dir, 'report.html');
  await writeHtmlReport(html, runs, s);
  const page = fs.readFileSync(html, 'utf8');
  t.regex(page, /policy\.expiration_date/);
  t.regex(page, /<img alt="page 1 around the value" src="data:image\/jpeg;base64,/);
  t.notRegex(page, /no crop/);
});
