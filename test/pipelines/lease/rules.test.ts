// The 15 checks one by one on structured facts: every status each rule can give, and the matching helpers.
import test from 'ava';
import {
  compare,
  restsOnUncertainFact,
  sameParty,
  addressParts,
  insuredCoversTenant,
  comparisonFields,
  type LeaseFacts,
  type InsuranceFacts,
  type LeaseRequirement,
  type RequirementKind,
  type ComparisonField,
} from '../../../pipelines/lease/index.ts';
import { insuranceFacts as readInsuranceFacts, extractPolicy } from '../../../pipelines/lease/index.ts';
import { layoutPage } from '../../../pipelines/documents/layout.ts';
import { insuranceFacts } from '../../helpers/lease.ts';

const c = <T>(value: T, page = 1) => ({ value, page, text: String(value) });
const req = (kind: RequirementKind, amount: number | null = null, extra: Partial<LeaseRequirement> = {}): LeaseRequirement => ({
  kind,
  required: true,
  amount,
  statutory: false,
  clause: `${kind} clause`,
  page: 2,
  ...extra,
});

function lease(over: Partial<LeaseFacts> = {}): LeaseFacts {
  return {
    type: 'residential',
    propertyAddress: c('12 Oak Street, Apt 4B, Springfield, IL 62704'),
    landlord: c('Oak Street Properties LLC'),
    manager: null,
    tenant: c('Jordan Lee'),
    leaseStart: c('2026-02-01'),
    leaseEnd: c('2027-01-31'),
    termRules: { start: null, end: null },
    requirements: {},
    ...over,
  };
}
function policy(over: Partial<InsuranceFacts> = {}): InsuranceFacts {
  return insuranceFacts({
    carrier: c('Lakeside Mutual'),
    policyNumber: c('RNT-1'),
    policyNumbers: ['RNT-1'],
    insured: c('Jordan Lee'),
    effectiveDate: c('2026-02-01'),
    expirationDate: c('2027-02-01'),
    propertyAddress: { ...c('12 Oak St #4B, Springfield, IL 62704'), from: 'premises' },
    ...over,
  });
}
const limit = (value: number | null, label = 'limit', extra = {}) => ({ value, page: 1, text: `${label} ${value}`, label, ...extra });
const check = (field: ComparisonField, l: LeaseFacts, p: InsuranceFacts, asOf = '2026-02-15') => compare(l, p, { asOf }).find((x) => x.field === field)!;

test('the comparison has exactly the 15 fields of SPEC §2.8, in order, and gap is null exactly on pass', (t) => {
  const items = compare(lease(), policy(), { asOf: '2026-02-15' });
  t.deepEqual(
    items.map((i) => i.field),
    [...comparisonFields],
  );
  for (const i of items) t.is(i.gap === null, i.status === 'pass', i.field);
});

test('a requirement the lease does not state passes as "Not required"', (t) => {
  for (const f of comparisonFields.slice(0, 12)) {
    const i = check(f, lease(), policy());
    t.is(i.status, 'pass', f);
    t.is(i.leaseRequired, 'Not required', f);
    t.is(i.leaseRequired_page, null, f);
  }
  const explicit = check(
    'Renters Insurance Required',
    lease({ requirements: { renters: req('renters', null, { required: false }) } }),
    policy({ kind: 'personal_auto' }),
  );
  t.is(explicit.status, 'pass');
  t.is(explicit.leaseRequired_page, 2);
});

test("Renters Insurance Required: tenant renters policy passes; auto, quote, someone else's homeowners fail; tenant homeowners is a warning", (t) => {
  const l = lease({ requirements: { renters: req('renters') } });
  t.is(check('Renters Insurance Required', l, policy()).status, 'pass');
  t.is(check('Renters Insurance Required', l, policy({ insured: c('Jordan Lee and Sam Lee') })).status, 'pass');
  t.is(check('Renters Insurance Required', l, policy({ kind: 'personal_auto' })).status, 'fail');
  t.is(check('Renters Insurance Required', l, policy({ markers: [{ value: 'quote', page: 1, text: 'quote' }] })).status, 'fail');
  t.is(check('Renters Insurance Required', l, policy({ kind: 'homeowners', insured: c('Margaret Chen') })).status, 'fail');
  t.is(check('Renters Insurance Required', l, policy({ kind: 'homeowners' })).status, 'warning');
  t.is(check('Renters Insurance Required', l, policy({ insured: c('Margaret Chen') })).status, 'fail');
  // A commercial tenant's liability certificate satisfies "tenant shall carry liability insurance".
  const com = lease({ type: 'commercial', tenant: c('Northwind Analytics, Inc.'), requirements: { liability: req('liability', 1_000_000) } });
  t.is(
    check('Renters Insurance Required', com, policy({ kind: 'certificate', insured: c('NORTHWIND ANALYTICS INC'), liability: limit(1_000_000) })).status,
    'pass',
  );
});

test('General Liability: at or above the minimum passes, below fails with the amounts, none shown fails', (t) => {
  const l = lease({ requirements: { liability: req('liability', 300_000) } });
  t.is(check('General Liability', l, policy({ liability: limit(300_000) })).status, 'pass');
  const low = check('General Liability', l, policy({ liability: limit(100_000, 'Personal Liability') }));
  t.is(low.status, 'fail');
  t.regex(low.gap!, /\$100,000.*\$300,000/);
  t.is(low.insuranceCoverage_page, 1);
  t.is(low.leaseRequired, '$300,000 minimum');
  t.is(check('General Liability', l, policy()).status, 'fail');
});

test('General Liability with an aggregate: per occurrence and aggregate compared apart; an aggregate not shown, or read badly, is a warning, never a pass', (t) => {
  const l = lease({ requirements: { liability: req('liability', 1_000_000, { aggregate: 2_000_000 }) } });
  const occ = limit(1_000_000, 'General Liability Each Occurrence');
  const agg = (v: number, page = 1) => ({ ...limit(v, 'General Liability General Aggregate'), page });
  const ok = check('General Liability', l, policy({ liability: occ, liabilityAggregate: agg(2_000_000) }));
  t.is(ok.status, 'pass');
  t.is(ok.leaseRequired, '$1,000,000 minimum; $2,000,000 aggregate');
  const short = check('General Liability', l, policy({ liability: occ, liabilityAggregate: agg(1_000_000) }));
  t.is(short.status, 'fail');
  t.regex(short.gap ?? '', /general aggregate is \$1,000,000, below the \$2,000,000 the lease requires \(short by \$1,000,000\)/);
  const unseen = check('General Liability', l, policy({ liability: occ }));
  t.is(unseen.status, 'warning');
  t.regex(unseen.gap ?? '', /does not show the aggregate/);
  const badOcr = compare(l, policy({ liability: occ, liabilityAggregate: agg(2_000_000, 2) }), {
    asOf: '2026-02-15',
    uncertainPages: { lease: [], insurance: [2] },
  }).find((x) => x.field === 'General Liability')!;
  t.is(badOcr.status, 'warning');
  t.regex(badOcr.gap ?? '', /aggregate was read by OCR with low confidence on page 2/);
  // The per-occurrence shortfall is still the fail it was.
  t.is(check('General Liability', l, policy({ liability: limit(500_000), liabilityAggregate: agg(2_000_000) })).status, 'fail');
});

test('Property Damage: at or above passes, below fails, not shown is a warning', (t) => {
  const l = lease({ requirements: { propertyDamage: req('propertyDamage', 100_000) } });
  t.is(check('Property Damage', l, policy({ propertyDamage: limit(100_000) })).status, 'pass');
  t.is(check('Property Damage', l, policy({ propertyDamage: limit(50_000) })).status, 'fail');
  t.is(check('Property Damage', l, policy()).status, 'warning');
});

test('Workers Compensation: statutory satisfies; absent fails', (t) => {
  const l = lease({ requirements: { workersComp: req('workersComp', null, { statutory: true }) } });
  t.is(check('Workers Compensation', l, policy({ workersComp: limit(1_000_000, 'WC', { statutory: true }) })).status, 'pass');
  t.is(check('Workers Compensation', l, policy()).status, 'fail');
  const amount = lease({ requirements: { workersComp: req('workersComp', 500_000) } });
  t.is(check('Workers Compensation', amount, policy({ workersComp: limit(100_000, 'EL') })).status, 'fail');
  t.is(check('Workers Compensation', amount, policy({ workersComp: limit(1_000_000, 'EL') })).status, 'pass');
});

for (const [field, kind, key] of [
  ['Umbrella/Excess Liability', 'umbrella', 'umbrella'],
  ['Auto Liability', 'auto', 'auto'],
  ['Professional Liability', 'professional', 'professional'],
] as const) {
  test(`${field}: at or above passes, below fails, absent fails`, (t) => {
    const l = lease({ requirements: { [kind]: req(kind, 1_000_000) } });
    t.is(check(field, l, policy({ [key]: limit(2_000_000) })).status, 'pass');
    t.is(check(field, l, policy({ [key]: limit(500_000) })).status, 'fail');
    t.is(check(field, l, policy()).status, 'fail');
  });
}

test('Additional Insured: landlord or its manager named passes; only interested party, additional interest or holder is a warning; not named fails', (t) => {
  const l = lease({ manager: c('Acme Management Inc.'), requirements: { additionalInsured: req('additionalInsured') } });
  const party = (value: string, role: InsuranceFacts['parties'][number]['role']) => ({ value, role, page: 1, text: value });
  t.is(check('Additional Insured', l, policy({ parties: [party('OAK STREET PROPERTIES, L.L.C.', 'additional_insured')] })).status, 'pass');
  t.is(check('Additional Insured', l, policy({ parties: [party('Acme Management', 'additional_insured')] })).status, 'pass');
  for (const role of ['interested_party', 'additional_interest', 'certificate_holder'] as const) {
    const w = check('Additional Insured', l, policy({ parties: [party('Oak Street Properties LLC', role)] }));
    t.is(w.status, 'warning', role);
  }
  const f = check('Additional Insured', l, policy({ parties: [party('First Bank', 'additional_insured')] }));
  t.is(f.status, 'fail');
  t.is(check('Additional Insured', l, policy()).status, 'fail');
});

test('Interested Party: listed passes; only additional insured is a warning; absent fails', (t) => {
  const l = lease({ requirements: { interestedParty: req('interestedParty') } });
  const party = (role: InsuranceFacts['parties'][number]['role']) => [{ value: 'Oak Street Properties LLC', role, page: 1, text: 'x' }];
  t.is(check('Interested Party', l, policy({ parties: party('interested_party') })).status, 'pass');
  t.is(check('Interested Party', l, policy({ parties: party('additional_interest') })).status, 'pass');
  t.is(check('Interested Party', l, policy({ parties: party('additional_insured') })).status, 'warning');
  t.is(check('Interested Party', l, policy()).status, 'fail');
});

test('Certificate Holder: landlord holder passes, another holder fails, a dec page without the section is a warning', (t) => {
  const l = lease({ requirements: { certificateHolder: req('certificateHolder') } });
  const holder = (value: string) => ({
    kind: 'certificate',
    hasCertificateHolderSection: true,
    parties: [{ value, role: 'certificate_holder' as const, page: 1, text: value }],
  });
  t.is(check('Certificate Holder', l, policy(holder('Oak Street Properties LLC c/o Acme Management'))).status, 'pass');
  t.is(check('Certificate Holder', l, policy(holder('Columbus Commercial Bank'))).status, 'fail');
  t.is(check('Certificate Holder', l, policy()).status, 'warning');
});

for (const [field, kind, key] of [
  ['Waiver of Subrogation', 'waiverOfSubrogation', 'waiverOfSubrogation'],
  ['Primary & Non-Contributory', 'primaryNonContributory', 'primaryNonContributory'],
] as const) {
  test(`${field}: shown passes, explicitly no fails, not shown is a warning`, (t) => {
    const l = lease({ requirements: { [kind]: req(kind) } });
    t.is(check(field, l, policy({ [key]: c(true) })).status, 'pass');
    t.is(check(field, l, policy({ [key]: c(false) })).status, 'fail');
    t.is(check(field, l, policy()).status, 'warning');
  });
}

test('Property Address: same after normalising passes; unit missing or different is a warning; another street fails', (t) => {
  const addr = (v: string) => policy({ propertyAddress: { ...c(v), from: 'premises' } });
  t.is(check('Property Address', lease(), addr('12 OAK ST. UNIT 4B, Springfield IL 62704')).status, 'pass');
  t.is(check('Property Address', lease(), addr('12 Oak Street, Springfield, IL 62704')).status, 'warning');
  t.is(check('Property Address', lease(), addr('12 Oak Street Apt 5, Springfield, IL 62704')).status, 'warning');
  t.is(check('Property Address', lease(), addr('7 Birch Lane, Peoria, IL 61602')).status, 'fail');
  t.is(check('Property Address', lease(), addr('12 Oak Street, Apt 4B, Decatur, IL 62521')).status, 'fail');
  t.is(check('Property Address', lease({ propertyAddress: null }), policy()).status, 'warning');
});

test('Policy Period: covering the term passes; expiring before the lease ends is a warning; starting late or expired on as_of fails', (t) => {
  t.is(check('Policy Period', lease(), policy()).status, 'pass');
  t.is(check('Policy Period', lease(), policy({ expirationDate: c('2026-08-01') })).status, 'warning');
  t.is(check('Policy Period', lease(), policy({ effectiveDate: c('2026-02-02') })).status, 'fail');
  t.is(check('Policy Period', lease(), policy({ expirationDate: c('2026-02-10') }), '2026-02-15').status, 'fail');
  const item = check('Policy Period', lease(), policy());
  t.is(item.leaseRequired, 'Feb 1, 2026 to Jan 31, 2027');
});

test('Policy Status: in force passes; binder or pending is a warning; cancelled, expired, quote or application fails', (t) => {
  const mark = (value: InsuranceFacts['markers'][number]['value']) => policy({ markers: [{ value, page: 1, text: value }] });
  t.is(check('Policy Status', lease(), policy()).status, 'pass');
  t.is(check('Policy Status', lease(), mark('binder')).status, 'warning');
  t.is(check('Policy Status', lease(), mark('pending')).status, 'warning');
  for (const m of ['cancelled', 'quote', 'application'] as const) t.is(check('Policy Status', lease(), mark(m)).status, 'fail', m);
  t.is(check('Policy Status', lease(), policy(), '2027-03-01').status, 'fail');
  t.is(check('Policy Status', lease(), policy({ expirationDate: null })).status, 'warning');
});

test('names match after normalising case, punctuation, LLC/Inc. and c/o', (t) => {
  t.true(sameParty('Oak Street Properties LLC', 'OAK STREET PROPERTIES, L.L.C.'));
  t.true(sameParty('Brickyard Commons LP', 'Brickyard Commons, L.P.'));
  t.true(sameParty('Acme Management Inc', 'Oak Street Properties LLC c/o Acme Management, Inc.'));
  t.false(sameParty('Oak Street Properties LLC', 'Elm Street Properties LLC'));
  t.true(insuredCoversTenant('John & Jane Smith', 'Jane Smith'));
  t.true(insuredCoversTenant('LEE, JORDAN', 'Jordan Lee'));
  t.false(insuredCoversTenant('Margaret Chen', 'Priya Raman and Daniel Okafor'));
});

test('addresses split into number, street, unit and ZIP', (t) => {
  t.deepEqual(addressParts('12 Oak Street, Apt 4B, Springfield, IL 62704'), { number: '12', street: 'oak st', unit: '4b', zip: '62704' });
  t.deepEqual(addressParts('12 OAK ST #4B SPRINGFIELD IL 62704'), { number: '12', street: 'oak st', unit: '4b', zip: '62704' });
  t.is(addressParts('200 Commerce Drive, Suite 310, Columbus, OH 43215').unit, '310');
});

test('never a pass without evidence: a met requirement whose insurance value has no page, or was read by OCR with low confidence, is a warning naming why', (t) => {
  const l = lease({ requirements: { liability: req('liability', 100000) } });
  t.is(check('General Liability', l, policy({ liability: limit(300000, 'Personal Liability') })).status, 'pass');
  const noPage = compare(l, policy({ liability: { ...limit(300000, 'Personal Liability'), page: null as unknown as number } }), { asOf: '2026-02-15' }).find(
    (x) => x.field === 'General Liability',
  )!;
  t.is(noPage.status, 'warning');
  t.regex(noPage.gap ?? '', /does not show/);
  const lowOcr = compare(l, policy({ liability: limit(300000, 'Personal Liability') }), {
    asOf: '2026-02-15',
    uncertainPages: { lease: [], insurance: [1] },
  }).find((x) => x.field === 'General Liability')!;
  t.is(lowOcr.status, 'warning');
  t.regex(lowOcr.gap ?? '', /low confidence on page 1/);
  // A requirement stated on a low-confidence lease page is uncertain too, and so is "Not required": the page read
  // badly may hold the requirement.
  const lowLease = compare(l, policy({ liability: limit(300000, 'Personal Liability') }), {
    asOf: '2026-02-15',
    uncertainPages: { lease: [2], insurance: [] },
  });
  t.is(lowLease.find((x) => x.field === 'General Liability')!.status, 'warning');
  const auto = lowLease.find((x) => x.field === 'Auto Liability')!;
  t.is(auto.status, 'warning');
  t.regex(auto.gap ?? '', /page 2 was read by OCR with low confidence; that it is not required is uncertain/);
  t.true(restsOnUncertainFact(auto));
  // With every lease page read well, "Not required" passes.
  t.is(check('Auto Liability', l, policy()).status, 'pass');
});

test('never a pass on a limit the lease states on a low-confidence page away from its clause (by reference or past a page break)', (t) => {
  const l = lease({
    requirements: { liability: req('liability', 1000000, { page: 3, amountSource: { page: 1, text: 'Liability: $1,000,000', how: 'reference' } }) },
  });
  const p = policy({ liability: limit(2000000, 'Each Occurrence') });
  t.is(compare(l, p, { asOf: '2026-02-15', uncertainPages: { lease: [], insurance: [] } }).find((x) => x.field === 'General Liability')!.status, 'pass');
  const low = compare(l, p, { asOf: '2026-02-15', uncertainPages: { lease: [1], insurance: [] } }).find((x) => x.field === 'General Liability')!;
  t.is(low.status, 'warning');
  t.regex(low.gap ?? '', /limit was read by OCR with low confidence on page 1/);
});

test('Policy Period: a commencement or expiration the lease sets by a rule is a warning quoting the rule, never a pass', (t) => {
  const rule = { value: 'The later of (a) July 1, 2026 and (b) 90 days after delivery', page: 2, text: 'Commencement Date: The later of …' };
  const start = check('Policy Period', lease({ leaseStart: null, leaseEnd: null, termRules: { start: rule, end: null } }), policy());
  t.is(start.status, 'warning');
  t.regex(start.gap ?? '', /by a rule, not a calendar date \("The later of/);
  t.is(start.leaseRequired_page, 2);
  const end = check(
    'Policy Period',
    lease({ leaseEnd: null, termRules: { start: null, end: { value: 'The last day of the 37th full calendar month', page: 3, text: 'x' } } }),
    policy(),
  );
  t.is(end.status, 'warning');
  t.regex(end.gap ?? '', /37th full calendar month/);
});

/** The insurance facts read off a one-page text document of these lines, as the insurance stage reads them. */
function factsOfLines(...lines: string[]): InsuranceFacts {
  const items = lines.map((text, i) => ({ text, x: 40, y: 60 + i * 14, w: text.length * 4.2, h: 10, source: 'text' as const }));
  const pages = [layoutPage(1, 612, 792, items, 'text')];
  return readInsuranceFacts(pages, extractPolicy(pages));
}
const markersOf = (...lines: string[]) => factsOfLines(...lines).markers.map((m) => m.value);

test('a cancellation is a marker only when the document states it: not "notified if the policy is cancelled", not a party’s notice of cancellation', (t) => {
  const head = ['Renters Policy Declarations', 'Policy Number: RT-100200', 'Policy Period: 02/01/2026 to 02/01/2027'];
  t.deepEqual(markersOf(...head, 'Oak Street Properties LLC has been added as an interested party and will be notified if the policy is cancelled.'), []);
  t.deepEqual(markersOf(...head, 'The interested party named above will receive notice of cancellation or nonrenewal.'), []);
  t.deepEqual(markersOf(...head, 'We will mail at least 10 days’ written notice of cancellation to the landlord.'), []);
  t.deepEqual(markersOf('NOTICE OF CANCELLATION', ...head, 'Your policy is cancelled effective 03/01/2026 for nonpayment of premium.'), ['cancelled']);
  t.deepEqual(markersOf(...head, 'This policy has been cancelled as of March 1, 2026.'), ['cancelled']);
});

test('a quote, binder, application or pending status is a marker only when it is this document’s, not words a declarations page uses of other things', (t) => {
  const head = ['Renters Policy Declarations', 'Policy Number: RT-100200', 'Policy Period: 02/01/2026 to 02/01/2027'];
  for (const said of [
    'Please quote your policy number on all correspondence.',
    'To get a quote for auto insurance, call us at 800-555-0100.',
    'The statements in your insurance application are incorporated into this policy.',
    'Your premium is based on the information in your application for renters insurance.',
    'This declarations page replaces any binder previously issued.',
    'Coverage is not bound until payment is received.',
    'If you have questions about a claim that is pending review, call us.',
    'Discounts applied: Early Quote Discount, Paperless Discount.',
    'When we quote or sell a policy we collect information about the people it covers.',
    'You may quote other limits and make changes online at any time.',
    'The temporary coverage is cancelled when a policy replaces it.',
    'No notice of cancellation is required for a binder of 60 days or less.',
  ])
    t.deepEqual(markersOf(...head, said), [], said);
  t.deepEqual(markersOf('RENTERS INSURANCE QUOTE - HO-4', 'Quote Number: Q-88127', 'This is a quote, not a policy.'), ['quote']);
  t.deepEqual(markersOf('RENTERS INSURANCE BINDER - HO-4', 'Binder Number: BND-30917'), ['binder']);
  t.deepEqual(markersOf('APPLICATION FOR RENTERS INSURANCE', 'Applicant: Jordan Lee'), ['application']);
  t.deepEqual(markersOf('AUTO APPLICATION', 'Effective Date: 02/22/2026', 'Applicant signature'), ['application']);
  t.deepEqual(markersOf('Renters policy', 'This policy is pending review by our underwriters.'), ['pending']);
});

test('Policy Period: a lease end not read is a warning; only a month-to-month term passes without one', (t) => {
  const missing = check('Policy Period', lease({ leaseEnd: null }), policy());
  t.is(missing.status, 'warning');
  t.regex(missing.gap ?? '', /lease end could not be read/);
  const open = check('Policy Period', lease({ leaseEnd: null, openTerm: { value: 'month-to-month', page: 1, text: 'x' } }), policy());
  t.is(open.status, 'pass');
  t.regex(open.leaseRequired, /month-to-month/);
});

test('a landlord the lease did not give: a party or holder on the policy cannot be matched, a warning (not a fail, never a pass)', (t) => {
  const l = lease({ landlord: null, requirements: { interestedParty: req('interestedParty'), certificateHolder: req('certificateHolder') } });
  const named = policy({ parties: [{ value: 'Oak Street Properties LLC', role: 'interested_party', page: 1, text: 'x' }] });
  const ip = check('Interested Party', l, named);
  t.is(ip.status, 'warning');
  t.regex(ip.gap ?? '', /landlord could not be read/);
  t.is(check('Interested Party', l, policy({ parties: [] })).status, 'fail');
  const holder = policy({ parties: [{ value: 'Oak Street Properties LLC', role: 'certificate_holder', page: 1, text: 'x' }] });
  t.is(check('Certificate Holder', l, holder).status, 'warning');
});

test('an insurer’s letter that says the landlord "has been added to the policy as an interested party" names it', (t) => {
  const f = factsOfLines(
    'Proof of Renters Insurance',
    'This letter confirms that Jordan Lee is insured under renters policy HIC-R-4471902. Oak Street Properties LLC has',
    'been added to the policy as an interested party and will be notified if the policy is cancelled.',
  );
  t.deepEqual(
    f.parties.map((p) => [p.value, p.role]),
    [['Oak Street Properties LLC', 'interested_party']],
  );
  t.deepEqual(f.markers, []);
});
