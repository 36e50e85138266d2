import test from 'ava';
import { textPage as page, firstValues as run, type PlacedText } from '../../helpers/pages.ts';
import { findCarrier, findNamedInsured, insurerNamesIn, looksLikeName } from '../../../pipelines/extraction/names.ts';
import { extractCertificate } from '../../../pipelines/extraction/certificate.ts';
import { autoLiability, propertyLines } from '../../../pipelines/extraction/limits.ts';

test('insurer legal names are cut out of sentences; agencies and generic phrases are not carriers', (t) => {
  t.deepEqual(insurerNamesIn('policy, which is issued by Liberty Mutual Insurance Company (a stock insurance company), Boston, MA.'), [
    'Liberty Mutual Insurance Company',
  ]);
  t.deepEqual(insurerNamesIn('COVERAGE PROVIDED BY NATIONWIDE PROPERTY & CASUALTY INSURANCE CO.'), ['NATIONWIDE PROPERTY & CASUALTY INSURANCE CO.']);
  const p = page([
    [50, 40, 'Graves Insurance Group'],
    [50, 60, 'Your agent: Graves Insurance Group'],
    [50, 400, 'This policy is underwritten by Privilege Underwriters Reciprocal Exchange.'],
    [50, 420, 'Property Insurance Company'],
  ]);
  t.is(run((e) => findCarrier([p], e))['/policy/provider'], 'Privilege Underwriters Reciprocal Exchange');
  // With no legal name printed, the brand in the header.
  const q = page([
    [50, 30, 'GEICO'],
    [50, 200, 'Thank you for choosing us.'],
  ]);
  t.is(run((e) => findCarrier([q], e))['/policy/provider'], 'GEICO');
});

test('named insured: a label followed by another column is skipped for the name below it', (t) => {
  t.false(looksLikeName('Vehicles'));
  t.false(looksLikeName('Page 3'));
  t.false(looksLikeName('(Named Insured)'));
  t.true(looksLikeName('Natalie Dominguez'));
  t.true(looksLikeName('Blue Heron Cafe Inc'));
  const p = page([
    [54, 277, 'Named insured'],
    [310, 277, 'Vehicles'],
    [54, 291, 'Natalie Dominguez'],
    [310, 291, '1999 Toyota Camry'],
    [54, 305, '101 Bla Road'],
    [54, 319, 'Minton, OK 11224'],
  ]);
  const r = run((e) => findNamedInsured([p], e));
  t.is(r['/policyholder/first_name'], 'Natalie');
  t.is(r['/policyholder/last_name'], 'Dominguez');
  t.is(r['/policyholder/address'], '101 Bla Road, Minton, OK 11224');
});

test('named insured without a label: the first name of the mailing block', (t) => {
  const p = page([
    [300, 40, 'Declarations Page'],
    [60, 120, 'JOHN Q PUBLIC'],
    [60, 134, '12 OAK ST'],
    [60, 148, 'SPRINGFIELD, IL 62701'],
  ]);
  const r = run((e) => findNamedInsured([p], e));
  t.is(r['/policyholder/last_name'], 'PUBLIC');
});

/** The COVERAGES caption and column headers of an ACORD 25 certificate's text layer. */
const COVERAGE_HEADERS: PlacedText[] = [
  [22, 240, 'COVERAGES'],
  [20, 280, 'INSR'],
  [177, 280, 'ADDL SUBR'],
  [337, 280, 'POLICY EFF'],
  [384, 280, 'POLICY EXP'],
  [21, 292, 'LTR'],
  [75, 292, 'TYPE OF INSURANCE'],
  [178, 292, 'INSD WVD'],
  [247, 292, 'POLICY NUMBER'],
  [334, 292, '(MM/DD/YYYY) (MM/DD/YYYY)'],
  [500, 292, 'LIMITS'],
];

/** An ACORD 25 general liability row of insurer A (11/5/2023 to 11/5/2024, $1M / $2M), its SUBR and policy-number cells as given. */
const liabilityRow = (...numberCells: PlacedText[]): PlacedText[] => [
  [40, 306, 'COMMERCIAL GENERAL LIABILITY'],
  [428, 306, 'EACH OCCURRENCE'],
  [518, 306, '$ 1,000,000'],
  [25, 338, 'A'],
  ...numberCells,
  [340, 338, '11/5/2023'],
  [387, 338, '11/5/2024'],
  [428, 338, 'GENERAL AGGREGATE'],
  [518, 338, '$ 2,000,000'],
];

test('ACORD 25 boxes: the holder under its box label, not the IMPORTANT paragraph; flags under their header words', (t) => {
  const p = page([
    [162, 24, 'CERTIFICATE OF LIABILITY INSURANCE'],
    [
      29,
      98,
      'the terms and conditions of the policy, certain policies may require an endorsement. A statement on this certificate does not confer rights to the',
    ],
    [29, 108, 'certificate holder in lieu of such endorsement(s).'],
    [22, 119, 'PRODUCER'],
    [310, 119, 'CONTACT NAME:'],
    [24, 131, 'United Solutions Inc'],
    [310, 131, 'PHONE 615-280-1606'],
    [310, 170, 'INSURER A : Obsidian Specialty Insurance Co.'],
    [558, 170, '16871'],
    [22, 181, 'INSURED'],
    [310, 181, 'INSURER B :'],
    [74, 194, 'Acme Roofing LLC'],
    [74, 206, '109 McNickle Dr'],
    [74, 218, 'Smyrna, TN 37167'],
    ...COVERAGE_HEADERS,
    ...liabilityRow([183, 338, 'Y'], [218, 338, 'GL-000038834']),
    [22, 648, 'CERTIFICATE HOLDER'],
    [310, 648, 'CANCELLATION'],
    [74, 692, 'Scott Butler Homes'],
    [317, 692, 'ACCORDANCE WITH THE POLICY PROVISIONS.'],
    [74, 704, '8181 Rocky Fork Rd'],
  ]);
  const r = run((e) => extractCertificate([p], e));
  t.is(r['/certificate/producer'], 'United Solutions Inc');
  t.is(r['/certificate/insured'], 'Acme Roofing LLC');
  t.is(r['/certificate/certificate_holder'], 'Scott Butler Homes');
  t.is(r['/certificate/insurers/0/name'], 'Obsidian Specialty Insurance Co.');
  t.is(r['/certificate/coverages/0/type'], 'general_liability');
  t.is(r['/certificate/coverages/0/policy_number'], 'GL-000038834');
  t.is(r['/certificate/coverages/0/expiration_date'], '2024-11-05');
  t.is(r['/certificate/coverages/0/each_occurrence'], 1000000);
  t.is(r['/certificate/coverages/0/general_aggregate'], 2000000);
  t.is(r['/certificate/coverages/0/additional_insured'], true);
  t.is(r['/certificate/coverages/0/subrogation_waived'], false);
});

test('a SUBR WVD mark run into the policy number (one text run "Y BLS57854924") is the mark, not part of the number', (t) => {
  const p = page([
    [22, 40, 'CERTIFICATE OF LIABILITY INSURANCE'],
    [22, 70, 'PRODUCER'],
    [74, 82, 'United Solutions Inc'],
    [310, 170, 'INSURER A : Obsidian Specialty Insurance Co.'],
    [22, 181, 'INSURED'],
    [74, 194, 'Acme Roofing LLC'],
    ...COVERAGE_HEADERS,
    ...liabilityRow([196, 338, 'Y BLS57854924']),
    [22, 648, 'CERTIFICATE HOLDER'],
    [74, 692, 'Scott Butler Homes'],
  ]);
  const r = run((e) => extractCertificate([p], e));
  t.is(r['/certificate/coverages/0/policy_number'], 'BLS57854924');
  t.is(r['/certificate/coverages/0/effective_date'], '2023-11-05');
  t.is(r['/certificate/coverages/0/each_occurrence'], 1000000);
  t.is(r['/certificate/coverages/0/subrogation_waived'], true);
  t.is(r['/certificate/coverages/0/additional_insured'], false);
});

test('limits from the line naming them: split BI limits, a State Minimum reference skipped, a words-only limit not borrowed from the next row', (t) => {
  const auto = page([
    [40, 567, 'Bodily Injury Liability'],
    [42, 578, 'Each Person/Each Occurrence'],
    [45, 590, 'State Minimum $15,000/$30,000'],
    [248, 590, '$300,000/$500,000'],
    [377, 590, '$83.20'],
    [40, 609, 'Property Damage Liability'],
    [45, 620, 'State Minimum $5,000'],
    [270, 620, '$100,000'],
    [377, 620, '$79.80'],
  ]);
  const a = run((e) => autoLiability([auto], e, 0));
  t.is(a['/coverages/0/limit'], '300000/500000');
  t.is(a['/coverages/1/limit'], 100000);
  const home = page([
    [33, 133, 'Personal Property Protection -'],
    [205, 133, '$15,000'],
    [398, 133, '• $500 All peril'],
    [33, 160, 'Additional Living Expense'],
    [205, 160, 'Up to 12 months'],
    [33, 175, 'Family Liability Protection'],
    [205, 175, '$100,000 each occurrence'],
    [33, 189, 'Guest Medical Protection'],
    [205, 189, '$1,000 each person'],
  ]);
  const h = run((e) => propertyLines([home], e, new Set()));
  t.is(h['/property/personal_property'], 15000);
  t.is(h['/property/loss_of_use'], undefined);
  t.is(h['/property/personal_liability'], 100000);
  t.is(h['/property/medical_payments'], 1000);
  t.is(h['/property/deductible'], 500);
});
