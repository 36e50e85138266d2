// Non-ACORD certificate rules on placed words: the answer columns (ADDL INSD / SUBR WVD and their other captions)
// wherever they stand, insurers named by letter, a stanza's labelled answers, limit captions abbreviated, the
// title wordings that make a page a certificate; and the each-occurrence limit under its other captions.
import test from 'ava';
import { textPage as page, collect, firstValues } from '../../helpers/pages.ts';
import { extractFreeCertificate } from '../../../pipelines/extraction/free_certificate.ts';
import { detectKind } from '../../../pipelines/extraction/rules.ts';
import { eachOccurrence } from '../../../pipelines/extraction/limits.ts';
import { declarationCore, liabilityFields } from '../../../pipelines/extraction/declarations.ts';
import { ground, indexPages } from '../../../pipelines/extraction/grounding.ts';

test('a table with answer columns between the insurer and the policy number: Y, N and a blank cell; marks run into the policy number', (t) => {
  const p = page([
    [200, 30, 'CERTIFICATE OF LIABILITY COVERAGE'],
    [40, 84, 'AGENT'],
    [316, 84, 'INSURED'],
    [50, 96, 'Tern Harbor Agency'],
    [322, 96, 'Quarry Hill Stoneworks LLC'],
    [40, 178, 'Type of Insurance'],
    [170, 178, 'Insurer'],
    [270, 178, 'AI'],
    [300, 178, 'WOS'],
    [330, 178, 'Policy No.'],
    [405, 178, 'Eff'],
    [450, 178, 'Exp'],
    [495, 178, 'Limits'],
    [40, 194, 'General Liability'],
    [170, 194, 'Rowan Mutual'],
    [273, 194, 'Y'],
    [305, 194, 'N'],
    [330, 194, 'RMG 5512090'],
    [405, 194, '03/01/2025'],
    [450, 194, '03/01/2026'],
    [495, 194, 'Each Occ $1,000,000'],
    [495, 206, 'Gen Agg $2,000,000'],
    [40, 230, 'Automobile Liability'],
    [170, 230, 'Rowan Mutual'],
    // The SUBR answer and the policy number read as one cell.
    [322, 230, 'Y RMA 5512091', 62],
    [405, 230, '03/01/2025'],
    [450, 230, '03/01/2026'],
    [495, 230, 'CSL $1,000,000'],
  ]);
  const v = firstValues((emit) => extractFreeCertificate(p, emit));
  t.is(v['/certificate/coverages/0/additional_insured'], true);
  t.is(v['/certificate/coverages/0/subrogation_waived'], false);
  t.is(v['/certificate/coverages/0/each_occurrence'], 1000000);
  t.is(v['/certificate/coverages/0/general_aggregate'], 2000000);
  t.is(v['/certificate/coverages/1/policy_number'], 'RMA 5512091');
  // A blank ADDL INSD cell under a printed column is no, with less confidence than a printed N.
  t.is(v['/certificate/coverages/1/additional_insured'], false);
  t.is(v['/certificate/coverages/1/subrogation_waived'], true);
  const cs = collect((emit) => extractFreeCertificate(p, emit));
  const conf = (ptr: string) => cs.find((c) => c.pointer === ptr)!.confidence;
  t.true(conf('/certificate/coverages/1/additional_insured') < conf('/certificate/coverages/0/subrogation_waived'));
});

test('insurers named by letter under the table, a letter column, and captions stacked over the header line', (t) => {
  const p = page([
    [200, 44, 'CERTIFICATE OF INSURANCE'],
    [40, 156, 'CO'],
    [200, 156, 'ADDL'],
    [232, 156, 'SUBR'],
    [68, 160, 'Coverage'],
    [262, 160, 'Policy Number'],
    [350, 160, 'Policy Eff'],
    [405, 160, 'Policy Exp'],
    [462, 160, 'Limits'],
    [40, 165, 'LTR'],
    [200, 165, 'INSD'],
    [232, 165, 'WVD'],
    [44, 178, 'B'],
    [68, 178, 'Commercial General Liability'],
    [206, 178, 'X'],
    [262, 178, 'CGL-4410-2231'],
    [350, 178, '06/01/2025'],
    [405, 178, '06/01/2026'],
    [462, 178, 'Each Occurrence $1,000,000'],
    [44, 208, 'A'],
    [68, 208, "Workers' Compensation"],
    [206, 208, 'N/A'],
    [238, 208, 'X'],
    [262, 208, 'WC 88-1200'],
    [350, 208, '01/01/2025'],
    [405, 208, '01/01/2026'],
    [462, 208, 'Statutory'],
    [40, 265, 'Companies Affording Coverage'],
    [40, 278, 'Company A: Kettle Creek Casualty Company'],
    [40, 290, 'Company B: Fox Run Indemnity Corp.'],
  ]);
  const v = firstValues((emit) => extractFreeCertificate(p, emit));
  t.is(v['/certificate/insurers/0/letter'], 'A');
  t.is(v['/certificate/insurers/0/name'], 'Kettle Creek Casualty Company');
  t.is(v['/certificate/insurers/1/name'], 'Fox Run Indemnity Corp.');
  t.is(v['/certificate/coverages/0/insurer_letter'], 'B');
  t.is(v['/certificate/coverages/0/additional_insured'], true);
  t.is(v['/certificate/coverages/0/subrogation_waived'], false);
  t.is(v['/certificate/coverages/1/insurer_letter'], 'A');
  // N/A under ADDL INSD on the WC row: the question does not apply.
  t.is(v['/certificate/coverages/1/additional_insured'], null);
  t.is(v['/certificate/coverages/1/subrogation_waived'], true);
  // The first coverage's insurer, through its letter, is the policy's carrier.
  t.is(v['/policy/provider'], 'Fox Run Indemnity Corp.');
});

test('a stanza per coverage states the answers in words; a certificate without them says nothing', (t) => {
  const p = page([
    [200, 30, 'EVIDENCE OF INSURANCE'],
    [40, 80, 'Insured:'],
    [110, 80, 'Wren Hollow Bakery LLC'],
    [40, 120, 'COVERAGES'],
    [40, 140, 'General Liability'],
    [52, 152, 'Insurer:'],
    [160, 152, 'Aster Mutual Insurance Company'],
    [52, 164, 'Policy Number:'],
    [160, 164, 'AMG 7781230'],
    [52, 176, 'Policy Period:'],
    [160, 176, '05/01/2025 to 05/01/2026'],
    [52, 188, 'Additional Insured:'],
    [160, 188, 'Yes'],
    [52, 200, 'Waiver of Subrogation:'],
    [160, 200, 'No'],
    [40, 224, 'Business Auto'],
    [52, 236, 'Policy Number:'],
    [160, 236, 'BA 7781231'],
    [52, 248, 'Policy Period:'],
    [160, 248, '05/01/2025 to 05/01/2026'],
  ]);
  const v = firstValues((emit) => extractFreeCertificate(p, emit));
  t.is(v['/certificate/coverages/0/additional_insured'], true);
  t.is(v['/certificate/coverages/0/subrogation_waived'], false);
  t.false('/certificate/coverages/1/additional_insured' in v);
  t.false('/certificate/coverages/1/subrogation_waived' in v);
});

test('an agency system titles its certificate in other words', (t) => {
  for (const title of ['CERTIFICATE OF LIABILITY COVERAGE', 'Proof of Insurance', 'Evidence of Coverage', 'Program Certificate of Insurance']) {
    const p = page([
      [200, 30, title],
      [40, 80, 'Insured: Lark Street Deli Inc'],
      [40, 120, 'General Liability  GL 5520031  01/01/2025  01/01/2026'],
    ]);
    t.is(detectKind([p]), 'certificate', title);
  }
});

test('each occurrence under its other captions, named as its row prints it so the name is on the page', (t) => {
  for (const [caption, name] of [
    ['Liability and Medical Expenses - Per Occurrence', 'Liability and Medical Expenses - Per Occurrence'],
    ['Each Occurrence Limit', 'Each Occurrence Limit'],
    ['Occurrence Limit', 'Occurrence Limit'],
  ]) {
    const p = page([
      [40, 100, 'SECTION II - LIABILITY'],
      [40, 120, 'Damage to Premises Rented to You - each occurrence'],
      [420, 120, '$300,000'],
      [40, 134, caption],
      [420, 134, '$1,000,000'],
    ]);
    const cs = collect((emit) => eachOccurrence([p], emit, 0));
    const v = Object.fromEntries(cs.map((c) => [c.pointer, c.value]));
    t.is(v['/coverages/0/limit'], 1000000, caption);
    t.is(v['/coverages/0/name'], name);
    const idx = indexPages([p]);
    t.true(
      cs.every((c) => ground(c, idx).ok),
      caption,
    );
  }
});

test('a coverage row read without its dates is less sure of what it gives, so it is reviewed', (t) => {
  const p = page([
    [200, 30, 'EVIDENCE OF INSURANCE'],
    [40, 120, 'COVERAGES'],
    [40, 140, 'General Liability'],
    [52, 152, 'Policy Number:'],
    [160, 152, 'GLA 4410022'],
    [52, 164, 'Policy Period:'],
    [160, 164, '05/01/2025 to 05/01/2026'],
    [52, 176, 'Each Occurrence'],
    [160, 176, '$1,000,000'],
    [40, 200, "Workers' Compensation"],
    [52, 212, 'Policy Number:'],
    [160, 212, 'WC 4410023'],
    [52, 224, 'E.L. Each Accident'],
    [160, 224, '$500,000'],
  ]);
  const cs = collect((emit) => extractFreeCertificate(p, emit));
  const conf = (ptr: string) => cs.find((c) => c.pointer === ptr)!.confidence;
  t.true(conf('/certificate/coverages/0/each_occurrence') >= 0.8);
  t.true(conf('/certificate/coverages/1/el_each_accident') < 0.7);
});

test('a limits table whose occurrence row is captioned "Per Occurrence" or "Occurrence Limit" is not given the limit twice', (t) => {
  for (const caption of ['Per Occurrence', 'Occurrence Limit']) {
    const p = page([
      [50, 80, 'COMMERCIAL GENERAL LIABILITY DECLARATIONS'],
      [50, 100, 'Policy Number: GL 5561230'],
      [50, 200, 'Coverage Part'],
      [340, 200, 'Limit of Insurance'],
      [50, 216, caption],
      [340, 216, '$1,000,000'],
      [50, 228, 'General Aggregate Limit'],
      [340, 228, '$2,000,000'],
    ]);
    const cs = collect((emit) => liabilityFields([p], declarationCore([p], emit), emit));
    const limits = cs.filter((c) => /^\/coverages\/\d+\/limit$/.test(c.pointer) && c.value === 1000000);
    t.is(limits.length, 1, caption);
  }
});

test('a member certificate: the administrator and the member by their captions, the master policy and period stated once (only when one), limits with no line named', (t) => {
  const p = page([
    [40, 34, 'Northstar Fitness Professionals Association'],
    [40, 54, 'CERTIFICATE OF INSURANCE - MEMBER COVERAGE'],
    [40, 82, 'Program Administrator'],
    [320, 82, 'Underwritten by'],
    [40, 94, 'Summit Program Underwriters, Inc.'],
    [320, 94, 'Ironbridge Specialty Insurance Company'],
    [40, 106, '300 Lakeshore Dr, Floor 9'],
    [320, 106, 'Master Policy No. ISP-NFPA-2025-001'],
    [40, 118, 'Chicago, IL 60611'],
    [40, 150, 'Member Name and Address'],
    [320, 150, 'Coverage Period'],
    [40, 162, 'Rachel T. Moreno'],
    [320, 162, '02/01/2025 through 02/01/2026'],
    [40, 174, 'dba Moreno Personal Training'],
    [40, 188, '4410 Cedar Ave S'],
    [40, 201, 'Minneapolis, MN 55407'],
    [40, 224, 'COVERAGE PROVIDED TO THE MEMBER UNDER THE MASTER POLICY'],
    [56, 242, 'Each Occurrence Limit'],
    [495, 242, '$1,000,000'],
    [56, 257, 'General Aggregate Limit'],
    [495, 257, '$3,000,000'],
    [40, 363, 'Certificate Holder'],
    [320, 363, 'Additional Insured Status'],
    [40, 375, 'Lakes Area Community Center'],
    [320, 375, 'The certificate holder is included as an additional insured.'],
    [40, 388, '2200 Lyndale Ave N'],
    [40, 401, 'Minneapolis, MN 55411'],
  ]);
  const v = firstValues((emit) => extractFreeCertificate(p, emit));
  t.is(v['/certificate/producer'], 'Summit Program Underwriters, Inc.');
  t.is(v['/certificate/insured'], 'Rachel T. Moreno dba Moreno Personal Training');
  t.is(v['/policyholder/address'], '4410 Cedar Ave S, Minneapolis, MN 55407');
  // The holder's block ends before the box beside it, whatever that box's caption says.
  t.is(v['/certificate/certificate_holder'], 'Lakes Area Community Center');
  t.is(v['/certificate/coverages/0/type'], 'general_liability');
  t.is(v['/certificate/coverages/0/policy_number'], 'ISP-NFPA-2025-001');
  t.is(v['/certificate/coverages/0/effective_date'], '2025-02-01');
  t.is(v['/certificate/coverages/0/expiration_date'], '2026-02-01');
  t.is(v['/certificate/coverages/0/each_occurrence'], 1000000);
  t.is(v['/certificate/coverages/0/general_aggregate'], 3000000);
  t.is(v['/certificate/coverages/0/additional_insured'], true);
  t.is(v['/policy/provider'], 'Ironbridge Specialty Insurance Company');
  // Borrowed from outside the record and typed by its limits: never reported as sure.
  const cs = collect((emit) => extractFreeCertificate(p, emit));
  for (const k of ['policy_number', 'effective_date', 'type', 'additional_insured'])
    t.true(cs.find((c) => c.pointer === `/certificate/coverages/0/${k}`)!.confidence < 0.9, k);
  // A page that states two policies outside its coverage rows lends neither; a sentence that makes the holder an
  // additional insured only on request says nothing.
  const two = page([
    [200, 30, 'EVIDENCE OF INSURANCE'],
    [40, 80, 'Insured:'],
    [110, 80, 'Wren Hollow Bakery LLC'],
    [40, 100, 'Policy No. AMG 7781230'],
    [320, 100, 'Policy No. AMG 7781299'],
    [40, 120, 'COVERAGES'],
    [40, 140, 'General Liability'],
    [52, 152, 'Each Occurrence $1,000,000'],
    [40, 60, 'The certificate holder is an additional insured upon request.'],
  ]);
  const w = firstValues((emit) => extractFreeCertificate(two, emit));
  t.is(w['/certificate/coverages/0/policy_number'], null);
  t.false('/certificate/coverages/0/additional_insured' in w);
});

test("a PEO's certificate of workers' compensation: titled with the date beside it, the client company, a sentence on coverage, the waiver answered in words", (t) => {
  const p = page([
    [40, 30, 'Summit Staffing Solutions, Inc.'],
    [40, 74, "CERTIFICATE OF WORKERS' COMPENSATION COVERAGE"],
    [460, 74, 'Date: 10/02/2025'],
    [40, 104, 'Client Company:'],
    [250, 104, 'Buckhead Bistro Group LLC'],
    [40, 136, 'Insurance Carrier:'],
    [250, 136, 'Magnolia State Workers Compensation Insurance Company'],
    [40, 152, 'Policy Number:'],
    [250, 152, 'MSW-4410297-25'],
    [40, 168, 'Policy Period:'],
    [250, 168, '07/01/2025 to 07/01/2026'],
    [40, 184, "Workers' Compensation:"],
    [250, 184, 'Statutory Limits - State of Georgia'],
    [40, 200, "Employer's Liability - Each Accident:"],
    [250, 200, '$1,000,000'],
    [40, 232, 'Waiver of Subrogation: Yes, in favor of the certificate holder'],
    [40, 262, 'Coverage applies only to worksite employees co-employed by Summit Staffing Solutions, Inc.'],
    [40, 302, 'Certificate Holder:'],
    [40, 316, 'Phipps Plaza Retail LLC'],
  ]);
  t.is(detectKind([p]), 'certificate');
  const v = firstValues((emit) => extractFreeCertificate(p, emit));
  t.is(v['/certificate/insured'], 'Buckhead Bistro Group LLC');
  t.is(v['/certificate/coverages/0/type'], 'workers_compensation');
  t.is(v['/certificate/coverages/0/policy_number'], 'MSW-4410297-25');
  t.is(v['/certificate/coverages/0/expiration_date'], '2026-07-01');
  t.is(v['/certificate/coverages/0/wc_statutory'], true);
  t.is(v['/certificate/coverages/0/el_each_accident'], 1000000);
  t.is(v['/certificate/coverages/0/subrogation_waived'], true);
});

test("a boxed party whose neighbouring box's caption a scan lost: the words far right on its lines are not the party's", (t) => {
  const p = page([
    [40, 35, 'CERTIFICATE OF INSURANCE - MEMBER COVERAGE'],
    [40, 145, 'Member Name and Address'],
    [40, 157, 'Northstar Electrical Contractors LLC'],
    [318, 157, '05/13/2026 through 05/13/2027'],
    [40, 170, '88 Foundry Rd'],
    [40, 181, 'Dayton, OH 45402'],
  ]);
  const v = firstValues((emit) => extractFreeCertificate(p, emit));
  t.is(v['/certificate/insured'], 'Northstar Electrical Contractors LLC');
  t.is(v['/policyholder/address'], '88 Foundry Rd, Dayton, OH 45402');
});
