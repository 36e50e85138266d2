import test from 'ava';
import type { PageText } from '../../../pipelines/documents/layout.ts';
import { textPage, firstValues as run, type PlacedText } from '../../helpers/pages.ts';

/** Kinds' pages: 7 pt text. */
const page = (cells: PlacedText[], n = 1, source: 'text' | 'ocr' = 'text'): PageText => textPage(cells, n, { h: 7, source });
import { extractCertificate } from '../../../pipelines/extraction/certificate.ts';
import { certificateForm } from '../../../pipelines/extraction/kinds/index.ts';
import { findCarrier } from '../../../pipelines/extraction/names.ts';
import { segmentWords, isRunTogether, segmentRunTogetherPages } from '../../../pipelines/extraction/segment.ts';
import { buildExtractedData } from '../../../pipelines/extraction/build.ts';
import { detectKind, describePolicyType } from '../../../pipelines/extraction/rules.ts';

const NOTICE: [number, number, string][] = [
  [162, 24, 'CERTIFICATE OF LIABILITY INSURANCE'],
  [29, 60, 'BELOW. THIS CERTIFICATE OF INSURANCE DOES NOT CONSTITUTE A CONTRACT BETWEEN THE ISSUING INSURER(S), AUTHORIZED'],
  [29, 70, 'REPRESENTATIVE OR PRODUCER, AND THE'],
  [29, 80, 'CERTIFICATE HOLDER.'],
  [29, 90, 'IMPORTANT: If the certificate holder is an ADDITIONAL INSURED, the policy(ies) must have ADDITIONAL INSURED provisions'],
  [22, 119, 'PRODUCER'],
  [310, 119, 'CONTACT'],
  [24, 131, 'Acme Risk Partners LLC'],
  [24, 140, '12345 Castro St'],
  [22, 181, 'INSURED'],
  [310, 181, 'INSURER A : Example Mutual Insurance Company'],
  [74, 194, 'Widget Makers Inc'],
  [74, 203, '914 Air Drive'],
];

test('holder box: stops at the cancellation clause printed left of its caption; the notice\'s "certificate holder." is not the box', (t) => {
  const p = page([
    ...NOTICE,
    [22, 648, 'CERTIFICATE HOLDER'],
    [310, 648, 'CANCELLATION'],
    [307, 660, 'SHOULD ANY OF THE ABOVE DESCRIBED POLICIES BE CANCELLED BEFORE THE'],
    [307, 668, 'EXPIRATION DATE THEREOF, NOTICE WILL BE DELIVERED IN ACCORDANCE WITH'],
    [307, 676, 'THE POLICY PROVISIONS.'],
    [70, 690, 'Test Company'],
    [70, 699, '1 Main St'],
  ]);
  const r = run((e) => extractCertificate([p], e));
  t.is(r['/certificate/certificate_holder'], 'Test Company');
  // A name ending in a legal suffix does not run into the next line; an address line is never a name's second line.
  t.is(r['/certificate/producer'], 'Acme Risk Partners LLC');
  t.is(r['/certificate/insured'], 'Widget Makers Inc');
});

test('holder box printed "N/A" is empty', (t) => {
  const p = page([...NOTICE, [22, 648, 'CERTIFICATE HOLDER'], [310, 648, 'CANCELLATION'], [73, 700, 'N/A'], [73, 709, 'N/A'], [73, 730, 'N/A,']]);
  const r = run((e) => extractCertificate([p], e));
  t.false('/certificate/certificate_holder' in r);
  t.false('/interested_parties/0/name' in r);
});

test("coverage grid on a scan: ADDL/SUBR columns found from the rows' Y/N answers; a policy number left of its column is not a type word", (t) => {
  const p = page([
    ...NOTICE,
    [22, 240, 'COVERAGES'],
    [66, 280, 'INSR'],
    [115, 280, 'TYPE OF INSURANCE'],
    [253, 280, 'POLICY NUMBER'],
    [322, 274, 'POLICY EFF'],
    [380, 274, 'POLICY EXP'],
    [500, 280, 'LIMITS'],
    [83, 292, 'X COMMERCIAL GENERAL LIABILITY'],
    [409, 292, 'EACH OCCURRENCE'],
    [525, 292, '$1,000,000'],
    [70, 310, 'A'],
    [208, 310, 'N', 4],
    [223, 310, 'Y', 4],
    [236, 310, '6089057'],
    [322, 310, '11/01/2023'],
    [380, 310, '11/01/2024'],
    [430, 310, 'GENERAL AGGREGATE'],
    [525, 310, '$2,000,000'],
  ]);
  const r = run((e) => extractCertificate([p], e));
  t.is(r['/certificate/coverages/0/type'], 'general_liability');
  t.is(r['/certificate/coverages/0/policy_number'], '6089057');
  t.is(r['/certificate/coverages/0/additional_insured'], false);
  t.is(r['/certificate/coverages/0/subrogation_waived'], true);
  t.is(r['/certificate/coverages/0/general_aggregate'], 2000000);
});

test('ACORD 28 evidence of commercial property: boxes by caption, subrogation answer read against YES/NO columns', (t) => {
  const p = page([
    [132, 35, 'EVIDENCE OF COMMERCIAL PROPERTY INSURANCE'],
    [22, 96, 'PRODUCER NAME,'],
    [310, 96, 'COMPANY NAME AND ADDRESS'],
    [493, 96, 'NAIC NO: 24567'],
    [22, 104, 'CONTACT PERSON AND ADDRESS'],
    [20, 112, 'Jane Broker'],
    [308, 112, 'Harbor Insurance Company'],
    [20, 121, '1 Document Way'],
    [22, 196, 'NAMED INSURED AND ADDRESS'],
    [310, 196, 'LOAN NUMBER'],
    [468, 196, 'POLICY NUMBER'],
    [466, 205, 'CPP-1234567'],
    [67, 212, 'Lakeside Condominiums'],
    [67, 220, '2 Shore Rd'],
    [310, 220, 'EFFECTIVE DATE'],
    [396, 220, 'EXPIRATION DATE'],
    [332, 229, '7/1/2022'],
    [418, 229, '7/1/2023'],
    [260, 370, 'YES NO N/A', 40],
    [22, 595, 'PERMISSION TO WAIVE SUBROGATION IN FAVOR OF MORTGAGE'],
    [278, 595, 'X', 6],
    [22, 651, 'ADDITIONAL INTEREST'],
    [22, 689, 'NAME AND ADDRESS'],
    [83, 704, 'First Federal Bank'],
    [83, 713, '12 South Pkwy'],
  ]);
  const form = certificateForm([p]);
  t.is(form.id, 'acord27_28');
  const r = run((e) => form.extract([p], e));
  t.is(r['/certificate/producer'], 'Jane Broker');
  t.is(r['/certificate/insurers/0/name'], 'Harbor Insurance Company');
  t.is(r['/certificate/insurers/0/naic'], '24567');
  t.is(r['/certificate/insured'], 'Lakeside Condominiums');
  t.is(r['/certificate/certificate_holder'], 'First Federal Bank');
  t.is(r['/certificate/coverages/0/type'], 'property');
  t.is(r['/certificate/coverages/0/policy_number'], 'CPP-1234567');
  t.is(r['/certificate/coverages/0/effective_date'], '2022-07-01');
  t.is(r['/certificate/coverages/0/expiration_date'], '2023-07-01');
  t.is(r['/certificate/coverages/0/subrogation_waived'], false);
  t.is(describePolicyType('certificate', [p]), 'Evidence of Commercial Property Insurance');
});

test('ACORD 75 binder: detected as a certificate; sections with an amount become coverage lines', (t) => {
  const p = page([
    [236, 26, 'INSURANCE BINDER'],
    [51, 49, 'THIS BINDER IS A TEMPORARY INSURANCE CONTRACT, SUBJECT TO THE CONDITIONS SHOWN ON PAGE 2 OF THIS FORM.'],
    [22, 62, 'AGENCY'],
    [310, 62, 'COMPANY'],
    [490, 62, 'BINDER #'],
    [358, 71, 'Granite Mutual'],
    [30, 77, 'Matrix Insurance Services'],
    [362, 84, 'EFFECTIVE'],
    [522, 84, 'EXPIRATION'],
    [321, 104, '01/15/2021'],
    [488, 104, '02/15/2021'],
    [22, 158, 'INSURED AND MAILING ADDRESS'],
    [59, 174, 'Marissa Petipas'],
    [61, 182, '3848 Scope Rd'],
    [22, 218, 'COVERAGES'],
    [52, 232, 'TYPE OF INSURANCE'],
    [22, 241, 'PROPERTY'],
    [240, 254, 'PROPERTY COVERAGE'],
    [542, 254, '$50,000'],
    [22, 289, 'GENERAL LIABILITY'],
    [425, 289, 'EACH OCCURRENCE'],
    [544, 289, '50,000'],
    [425, 338, 'GENERAL AGGREGATE'],
    [542, 338, '100,000'],
    [22, 494, 'GARAGE LIABILITY'],
    [425, 494, 'AUTO ONLY - EA ACCIDENT'],
    [22, 541, 'EXCESS LIABILITY'],
    [425, 541, 'EACH OCCURRENCE'],
    [539, 541, '20,000'],
    [22, 662, 'NAME & ADDRESS'],
    [78, 683, 'Jordan Wagel'],
  ]);
  t.is(detectKind([p]), 'certificate');
  const form = certificateForm([p]);
  t.is(form.id, 'acord75');
  // A carrier's own binder (a declarations page titled "binder") is not the ACORD form.
  const own = page([
    [40, 20, 'Lakeside Mutual Insurance Company'],
    [40, 60, 'RENTERS INSURANCE BINDER - HO-4'],
    [40, 72, 'This binder is temporary evidence of coverage until the policy is issued.'],
    [40, 90, 'Binder Number: BND-30917'],
    [40, 110, 'Coverage C - Personal Property $30,000'],
  ]);
  t.not(detectKind([own]), 'certificate');
  const r = run((e) => form.extract([p], e));
  t.is(r['/certificate/producer'], 'Matrix Insurance Services');
  t.is(r['/certificate/insurers/0/name'], 'Granite Mutual');
  t.is(r['/certificate/insured'], 'Marissa Petipas');
  t.is(r['/certificate/certificate_holder'], 'Jordan Wagel');
  t.is(r['/policy/effective_date'], '2021-01-15');
  t.is(r['/policy/expiration_date'], '2021-02-15');
  t.deepEqual(
    [0, 1, 2, 3].map((i) => r[`/certificate/coverages/${i}/type`]),
    ['property', 'general_liability', 'umbrella_liability', undefined], // the garage section prints no amount
  );
  t.is(r['/certificate/coverages/1/each_occurrence'], 50000);
  t.is(r['/certificate/coverages/1/general_aggregate'], 100000);
  t.is(r['/certificate/coverages/2/umbrella_each_occurrence'], 20000);
});

test('run-together text layers are re-spaced, clean pages are left alone', (t) => {
  t.is(segmentWords('StateFarmLloyds'), 'State Farm Lloyds');
  t.is(segmentWords('EffectiveDates: MAR302022toMAR302023'), 'Effective Dates: MAR 30, 2022 to MAR 30, 2023');
  t.is(segmentWords('CoverageA-Dwelling $240,900 at 12:01am'), 'Coverage A-Dwelling $240,900 at 12:01am');
  const joined = page(
    [
      'StateFarmLloyds',
      'ALloydsCompanyInRichardson,Texas',
      'RenewalDeclarations',
      'PolicyNumber:',
      'EffectiveDates:MAR302022toMAR302023',
      'HomeownersBasicPolicy',
      'LocationofResidencePremises',
      'YourStateFarmAgent',
      'ImportantMessagesForYou',
    ].map((s, i) => [40, 20 + i * 14, s] as [number, number, string]),
  );
  t.true(isRunTogether(joined));
  const clean = page([
    [40, 20, 'State Farm Fire and Casualty Company'],
    [40, 34, 'Renewal Declarations for your homeowners policy'],
  ]);
  t.false(isRunTogether(clean));
  const out = segmentRunTogetherPages([joined, clean]);
  t.deepEqual(out.treated, [1]);
  t.is(out.pages[1], clean);
  const r = run((e) => findCarrier(out.pages, e));
  t.is(r['/policy/provider'], 'State Farm Lloyds');
});

test('carrier: the legal name a brand abbreviates wins over the brand; "A MUTUAL COMPANY" stays part of the name', (t) => {
  const p = page([
    [200, 20, 'Liberty Mutual'],
    [40, 200, 'Thank you for being a Liberty Mutual customer. Your Liberty Mutual account is online.'],
    [40, 220, 'Liberty Mutual'],
  ]);
  const q = page(
    [
      [46, 199, 'policy, which is issued by Liberty Mutual Insurance Company (a'],
      [46, 211, 'stock insurance company), Boston, MA.'],
    ],
    3,
  );
  t.is(run((e) => findCarrier([p, q], e))['/policy/provider'], 'Liberty Mutual Insurance Company');
  const s = page([[60, 30, 'SOCIETY INSURANCE, A MUTUAL COMPANY']]);
  t.is(run((e) => findCarrier([s], e))['/policy/provider'], 'SOCIETY INSURANCE, A MUTUAL COMPANY');
});

test('citations carry the rule that chose a value; low-confidence values are listed in needs_review', (t) => {
  const built = buildExtractedData('personal_auto', [
    { pointer: '/policy/provider', value: 'GEICO', page: 1, text: 'GEICO', confidence: 0.55, source: 'rules', rule: 'carrier: brand in the page header' },
    {
      pointer: '/policy/policy_number',
      value: 'AB-123',
      page: 1,
      text: 'Policy Number AB-123',
      confidence: 0.9,
      source: 'rules',
      rule: 'label: Policy Number',
    },
  ]);
  t.is(built.data.citations['/policy/provider'].rule, 'carrier: brand in the page header');
  t.deepEqual(built.data.needs_review, ['/policy/provider']);
});

test('policy period: dates over the two lines after the caption, or left of their own captions around it', async (t) => {
  const { period } = await import('../../../pipelines/extraction/declarations.ts');
  const a = page([
    [400, 300, 'Policy period'],
    [400, 310, 'Beginning December 19, 2021 through'],
    [400, 320, 'June 19, 2022 at 12:01 a.m. standard'],
  ]);
  const ra = run((e) => period([a], e));
  t.is(ra['/policy/effective_date'], '2021-12-19');
  t.is(ra['/policy/expiration_date'], '2022-06-19');
  const b = page([
    [20, 300, '08/01/2021'],
    [120, 300, 'Effective Date'],
    [120, 310, '12 months - Policy Period'],
    [20, 320, '08/01/2022'],
    [120, 320, 'Expiration of Policy Period'],
  ]);
  const rb = run((e) => period([b], e));
  t.is(rb['/policy/effective_date'], '2021-08-01');
  t.is(rb['/policy/expiration_date'], '2022-08-01');
  // Two unrelated dates years apart are not a policy period.
  const c = page([
    [20, 300, 'Policy Period'],
    [20, 310, 'Printed 01/02/2015'],
    [20, 320, 'Member since 05/06/2021'],
  ]);
  t.false('/policy/effective_date' in run((e) => period([c], e)));
});

test('certificate row without type words takes the section caption above it (ACORD 24 property)', (t) => {
  const p = page([
    [128, 31, 'CERTIFICATE OF PROPERTY INSURANCE'],
    [22, 107, 'PRODUCER'],
    [20, 325, 'INSR'],
    [300, 325, 'POLICY EFFECTIVE'],
    [380, 325, 'POLICY EXPIRATION'],
    [66, 329, 'TYPE OF INSURANCE'],
    [202, 329, 'POLICY NUMBER'],
    [438, 329, 'COVERED PROPERTY'],
    [545, 329, 'LIMITS'],
    [54, 344, 'PROPERTY'],
    [443, 344, 'BUILDING'],
    [40, 356, 'CAUSES OF LOSS'],
    [54, 365, 'BASIC'],
    [54, 378, 'BROAD'],
    [163, 396, '92-QR-4650-9'],
    [308, 396, '06/18/2015'],
    [385, 396, '06/18/2016'],
  ]);
  const r = run((e) => extractCertificate([p], e));
  t.is(r['/certificate/coverages/0/type'], 'property');
  t.is(r['/certificate/coverages/0/policy_number'], '92-QR-4650-9');
});

test('built-in insurer list: a known legal name standing alone outranks an agency-like line', async (t) => {
  const { isKnownInsurer, INSURER_LEGAL_NAMES } = await import('../../../pipelines/extraction/insurers.ts');
  t.true(INSURER_LEGAL_NAMES.length >= 200);
  t.true(isKnownInsurer('STATE FARM FIRE AND CASUALTY COMPANY'));
  t.true(isKnownInsurer('NATIONWIDE PROPERTY & CASUALTY INSURANCE CO.'));
  t.false(isKnownInsurer('Some Insurance Company'));
  const p = page([
    [40, 30, 'Harbor Casualty Company'],
    [40, 500, 'Owners Insurance Company'],
  ]);
  t.is(run((e) => findCarrier([p], e))['/policy/provider'], 'Owners Insurance Company');
});

test('named insured under "Mailing name and address for Insured": a one-word business name is taken', async (t) => {
  const { findNamedInsured } = await import('../../../pipelines/extraction/names.ts');
  const p = page([
    [45, 125, 'Mailing name and address for Insured'],
    [45, 136, 'SENSIBLE'],
    [45, 148, '1234 TEST AVE'],
    [45, 160, 'SAN FRANCISCO CA 94101'],
  ]);
  const r = run((e) => findNamedInsured([p], e));
  t.is(r['/policyholder/organization'], 'SENSIBLE');
  t.is(r['/policyholder/address'], '1234 TEST AVE, SAN FRANCISCO CA 94101');
});

test('the registry is the one list of kinds: every document kind has one module with a label, and the LLM prompt offers exactly those kinds', async (t) => {
  const { declarationKinds, certificateForms, kindModule } = await import('../../../pipelines/extraction/kinds/index.ts');
  const { documentKinds } = await import('../../../pipelines/extraction/schema.ts');
  const { answerSchemaFor } = await import('../../../prompts/extraction.v1.ts');
  const declared = declarationKinds.map((m) => m.kind);
  t.is(new Set(declared).size, declared.length, 'one module per declarations kind');
  for (const kind of documentKinds) {
    if (kind === 'certificate') {
      t.true(certificateForms.length > 0 && certificateForms.every((m) => m.kind === 'certificate'));
      continue;
    }
    const m = kindModule(kind);
    t.is(m.kind, kind, `${kind} has its own module`);
    const label = typeof m.label === 'string' ? m.label : m.label('');
    t.true(label.length > 0, `${kind} has a policy_type label`);
  }
  const described = answerSchemaFor(documentKinds).shape.document_kind.description ?? '';
  t.deepEqual(described.replace(/^one of: /, '').split(', '), [...documentKinds]);
});
