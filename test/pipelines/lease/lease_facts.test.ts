// How leases state parties, premises, term and insurance (issue 29), each on a generated page: the cause, not a
// document. Real leases write these in a preamble, a summary table (either orientation), a definitions article
// or a cover page the summary points to; insurance clauses speak of the tenant's, the landlord's and
// contractors' policies side by side.
import test from 'ava';
import type { PageText } from '../../../pipelines/documents/layout.ts';
import { leaseFacts } from '../../../pipelines/lease/lease_facts.ts';
import { leaseStage } from '../../../pipelines/lease/index.ts';
import type { DocumentText } from '../../../pipelines/documents/index.ts';
import { insuranceFacts, readDocument, linesPage, row } from '../../helpers/lease.ts';

const page = linesPage;

const insurance = [
  'ARTICLE 9. INSURANCE',
  '9.1 Tenant shall, at its cost, obtain and maintain throughout the Term the following insurance:',
  '(a) Commercial general liability insurance naming Landlord as additional insured, in amounts at least',
  'equal to the limits set forth in Section 1.1;',
  '(b) Workers’ compensation insurance as required by law.',
  '9.2 Such insurance may be maintained under a blanket or umbrella policy covering other locations.',
  'Tenant shall furnish Landlord with certificates evidencing all such insurance before the Term begins.',
  '9.3 Landlord shall maintain commercial general liability insurance of not less than $500,000 per occurrence.',
  '9.4 Tenant shall cause each contractor to carry automobile liability insurance of not less than $5,000,000',
  'combined single limit and professional liability insurance of $2,000,000, naming Landlord as additional insured.',
];

test('a summary that points to the cover page: the parties are read from the cover, never "As listed on the cover page"', (t) => {
  const f = leaseFacts([
    page(1, ['LEASE AGREEMENT BETWEEN', 'HARBOR POINT HOLDINGS, L.L.C.,', 'AS LANDLORD, AND', 'QUILL ROBOTICS, INC.,', 'AS TENANT', 'DATED MAY 1, 2026']),
    page(2, [
      'BASIC LEASE INFORMATION',
      'Landlord:',
      'As listed on the cover page',
      'Tenant:',
      'As listed on the cover page',
      'Premises:',
      'Suite No. 200 and 300 of the building whose street address is 77 Wharf Street, Portland,',
      'Maine 04101 (the "Building").',
      'Commencement Date:',
      'The later of (a) July 1, 2026, and (b) the date that is 120 days after Landlord delivers the Premises.',
      'Expiration Date:',
      'The last day of the 60th full calendar month after the Commencement Date.',
      'Base Taxes: taxes for the fiscal year commencing on July 1, 2026 and expiring on June 30, 2027.',
      'Liability Insurance Limits:',
      '$2,000,000 per occurrence',
      '$4,000,000 general aggregate',
    ]),
    page(3, insurance),
  ]);
  t.is(f.landlord?.value, 'HARBOR POINT HOLDINGS, L.L.C.');
  t.is(f.landlord?.page, 1);
  t.is(f.tenant?.value, 'QUILL ROBOTICS, INC.');
  t.is(f.propertyAddress?.value, '77 Wharf Street, Suite No. 200 and 300, Portland, Maine 04101');
  // Dates defined by an event or a formula are null with the rule kept; the tax year's dates are not the term.
  t.is(f.leaseStart, null);
  t.is(f.leaseEnd, null);
  t.regex(f.termRules.start?.value ?? '', /^The later of \(a\) July 1, 2026/);
  t.regex(f.termRules.end?.value ?? '', /60th full calendar month/);
  // The limit incorporated by reference is followed to Section 1.1, per occurrence and aggregate apart.
  const gl = f.requirements.liability!;
  t.is(gl.amount, 2000000);
  t.is(gl.aggregate, 4000000);
  t.is(gl.page, 3);
  t.is(gl.amountSource?.page, 2);
  t.true(f.requirements.workersComp?.statutory);
  // The landlord's own policy and the contractors' policies are not the tenant's requirements.
  t.is(f.requirements.auto, undefined);
  t.is(f.requirements.professional, undefined);
  // Only permitted ("may be maintained under … umbrella"), so not required.
  t.is(f.requirements.umbrella, undefined);
  t.is(f.requirements.additionalInsured?.page, 3);
  t.regex(f.requirements.certificateHolder?.clause ?? '', /^Tenant shall furnish Landlord with certificates/);
});

test('the analysis stage keeps a premises put together from the suite and the street address (each part on the page), and the rules reach extractionNotes', (t) => {
  const pages = [
    page(1, ['LEASE', 'Premises:', 'Suite 725 of the building located at 1200 Grant Avenue, San Mateo, California 94402.']),
    page(2, ['Commencement Date:', 'The date on which Landlord delivers the Premises to Tenant.']),
  ];
  const out = leaseStage(readDocument(pages));
  t.is(out.facts.propertyAddress?.value, '1200 Grant Avenue, Suite 725, San Mateo, California 94402');
  t.is(out.facts.termRules.start?.page, 2);
  t.deepEqual(out.dropped, []);
});

test('a summary table in either orientation: headings over values, or the value before its label; a role heading is never a party', (t) => {
  const columns = leaseFacts([
    page(1, [
      'RESIDENTIAL LEASE',
      row('LANDLORD', 'TENANT', 330),
      row('Maple Court Apartments LLC', 'Avery Chen', 330),
      'Resident shall not allow any utility to be disconnected for non-payment.',
    ]),
  ]);
  t.is(columns.landlord?.value, 'Maple Court Apartments LLC');
  t.is(columns.tenant?.value, 'Avery Chen');
  const reversed = leaseFacts([
    page(1, [
      'BASIC TERMS',
      row('Maple Court Apartments LLC', 'Landlord', 400),
      row('Avery Chen and Sam Ortiz', 'Resident', 400),
      row('48 Elm Street, Apt 3C, Dayton, OH 45402', 'Premises', 400),
      row('September 1, 2026', 'Commencement Date', 400),
      row('August 31, 2027', 'Expiration Date', 400),
    ]),
  ]);
  t.is(reversed.landlord?.value, 'Maple Court Apartments LLC');
  t.is(reversed.tenant?.value, 'Avery Chen and Sam Ortiz');
  t.is(reversed.propertyAddress?.value, '48 Elm Street, Apt 3C, Dayton, OH 45402');
  t.is(reversed.leaseStart?.value, '2026-09-01');
  t.is(reversed.leaseEnd?.value, '2027-08-31');
});

test('a definitions article and a preamble in other wordings; a sentence is never a name', (t) => {
  const defs = leaseFacts([
    page(1, [
      'ARTICLE 1. DEFINITIONS',
      '1.1 "Landlord" means Cedar Yard Partners LP.',
      '1.2 "Tenant" means Brightline Labs, Inc., a Delaware corporation.',
      '1.3 "Premises" means the space located at 9 Harbor Road, Suite 12, Salem, MA 01970.',
      '1.4 "Commencement Date" means April 1, 2026.',
      '1.5 "Expiration Date" means March 31, 2031.',
    ]),
  ]);
  t.is(defs.landlord?.value, 'Cedar Yard Partners LP');
  t.is(defs.tenant?.value, 'Brightline Labs, Inc.');
  t.is(defs.propertyAddress?.value, '9 Harbor Road, Suite 12, Salem, MA 01970');
  t.is(defs.leaseStart?.value, '2026-04-01');
  t.is(defs.leaseEnd?.value, '2031-03-31');
  const preamble = leaseFacts([
    page(1, [
      'This Lease Agreement is made this day between 2430 N. Lake, LLC, a limited partnership (hereinafter referred to',
      'as "Landlord"), and Dana Whitfield (hereinafter referred to as "Resident"), paying an annual rent as stated below.',
      'So long as Resident performs, Resident shall quietly enjoy the Premises.',
    ]),
  ]);
  t.is(preamble.landlord?.value, '2430 N. Lake, LLC');
  t.is(preamble.tenant?.value, 'Dana Whitfield');
});

test('residential: renters insurance with a personal-liability minimum, the landlord as interested party, a declarations page accepted (no certificate holder required)', (t) => {
  const f = leaseFacts([
    page(1, [
      'Resident must purchase and keep in force renters insurance (HO-4) with personal liability coverage of at least',
      '$300,000 for the entire term. Resident shall list Maple Court Apartments LLC as an interested party on the',
      'policy. A copy of the declarations page is acceptable proof of insurance.',
    ]),
  ]);
  t.true(f.requirements.renters?.required);
  t.is(f.requirements.liability?.amount, 300000);
  t.true(f.requirements.interestedParty?.required);
  t.is(f.requirements.certificateHolder, undefined);
});

test('per-occurrence and aggregate kept apart whatever their order; a combined single limit is marked', (t) => {
  const f = leaseFacts([
    page(1, [
      'Tenant shall maintain commercial general liability insurance of $5,000,000 in the aggregate and $1,000,000 per',
      'occurrence. Tenant shall maintain business automobile liability insurance with a combined single limit of',
      '$1,000,000.',
    ]),
  ]);
  t.is(f.requirements.liability?.amount, 1000000);
  t.is(f.requirements.liability?.aggregate, 5000000);
  t.is(f.requirements.auto?.amount, 1000000);
  t.true(f.requirements.auto?.combinedSingleLimit);
});

test('summary.uncertain counts the verdicts that rest on a missing or uncertain fact', async (t) => {
  const { buildResult } = await import('../../../pipelines/lease/index.ts');
  const leasePages = [page(1, ['Commencement Date:', 'The date Landlord delivers the Premises.', 'Tenant shall maintain renters insurance.'])];
  const l = leaseStage(readDocument(leasePages));
  const ins = {
    document: { ...l.document },
    facts: insuranceFacts(),
    extracted: {} as never,
    dropped: [],
  } as Parameters<typeof buildResult>[1];
  const r = buildResult(l, ins, '2026-02-15');
  const uncertain = r.comparison.filter(
    (c) => c.status === 'warning' && /could not be read|not shown|not found|by a rule|no address|does not show/.test(c.gap ?? ''),
  );
  t.true(uncertain.length >= 3);
  t.is(r.summary.uncertain, uncertain.length);
  t.true(r.extractionNotes.some((n) => /leaseStart is null: the lease defines the commencement by a rule/.test(n)));
});

test('insurance side as the checker uses it: a heading run into the carrier is dropped from the name, an insured read from a sentence is no name', async (t) => {
  const { carrierName, insuredName } = await import('../../../pipelines/lease/index.ts');
  const cited = (value: string) => ({ value, page: 1, text: value });
  const dropped: string[] = [];
  t.is(carrierName(cited('DECLARATIONS Lakeside Mutual Insurance Company'), dropped)?.value, 'Lakeside Mutual Insurance Company');
  t.is(carrierName(cited('RENTERS POLICY DECLARATIONS - Evergreen Indemnity'), dropped)?.value, 'Evergreen Indemnity');
  t.is(carrierName(cited('CO. A Great Lakes Casualty Company'), dropped)?.value, 'Great Lakes Casualty Company');
  t.is(carrierName(cited('Lakeside Mutual'), dropped)?.value, 'Lakeside Mutual');
  t.is(carrierName(cited('DECLARATIONS'), dropped), null);
  t.is(insuredName(cited('on general'), dropped), null);
  t.is(insuredName(cited('Jordan Lee'), dropped)?.value, 'Jordan Lee');
  t.is(dropped.length, 2);
});

test('a residential form: "referred to as Landlord", a blank term line, and an unticked renters option that no verdict passes on', async (t) => {
  const { compare } = await import('../../../pipelines/lease/index.ts');
  const f = leaseFacts([
    page(1, [
      '1. PARTIES AND DWELLING UNIT: The parties to the Lease are the Prairie Housing Authority, referred to as',
      'Landlord, and the occupying family, referred to as the Resident. Name Social Security # Sex',
      'The Landlord leases to the Resident the premises located at 18 Birch Street, Apt #____ Hastings, NE 68901.',
      'Lease Start Date:',
      '____________________',
      'INSURANCE ☐ Tenant is required to maintain renter’s insurance with minimum coverage of $100,000',
      '☐ Renter’s insurance is recommended but not required.',
    ]),
  ]);
  t.is(f.landlord?.value, 'Prairie Housing Authority');
  t.is(f.tenant, null);
  // The blank unit is no unit; the city, state and ZIP after it are still the premises'.
  t.is(f.propertyAddress?.value, '18 Birch Street, Hastings, NE 68901');
  t.is(f.leaseStart, null);
  t.is(f.termRules.start, null);
  t.regex(f.requirements.renters?.uncertain ?? '', /checkbox/);
  const ins = insuranceFacts({
    insured: { value: 'Jordan Lee', page: 1, text: 'Jordan Lee' },
    liability: { value: 300000, page: 1, text: '$300,000', label: 'Personal Liability' },
  });
  const renters = compare({ ...f, tenant: { value: 'Jordan Lee', page: 1, text: 'x' } }, ins, { asOf: '2026-02-15' }).find(
    (c) => c.field === 'Renters Insurance Required',
  )!;
  t.is(renters.status, 'warning');
  t.regex(renters.gap ?? '', /uncertain: it is an option of a checkbox form/);
});

test('the dev-set scorer: facts by value and page (any page the label lists), requirements by required, amount and page, "either" accepted', async (t) => {
  const { scoreLeaseLabel, sameAddress } = await import('../../../pipelines/lease/evaluate.ts');
  const { shortDate } = await import('../../../pipelines/lease/index.ts');
  t.true(sameAddress('3200 Olympus Boulevard, Suite No. 100, Dallas, Texas 75019', '3200 Olympus Blvd, Suite 100, Dallas, TX 75019'));
  t.false(sameAddress('3200 Olympus Boulevard, Suite No. 100, Dallas, Texas 75019', '3200 Olympus Blvd, Dallas, TX'));
  const f = leaseFacts([
    page(1, ['LEASE', 'Landlord: Cedar Yard Partners LP', 'Tenant: Brightline Labs, Inc.']),
    page(2, ['Tenant shall maintain commercial general liability insurance of not less than $3,000,000 per occurrence.']),
  ]);
  const none = { required: false, amount: null, page: null };
  const s = scoreLeaseLabel(
    {
      lease: {
        propertyAddress: null,
        landlord: 'Cedar Yard Partners, L.P.',
        landlord_page: 9,
        tenant: 'Brightline Labs Inc',
        tenant_page: 1,
        leaseStart: null,
        leaseEnd: null,
      },
      allPages: { 'lease.landlord': [1, 9] },
      requirements: {
        'General Liability': { required: true, amount_per_occurrence: 3000000, page: 2 },
        'Property Damage': { required: true, amount_per_occurrence: 3000000, page: 2 },
        'Workers Compensation': { required: true, page: 2 },
        'Umbrella/Excess Liability': none,
        'Auto Liability': none,
        'Professional Liability': none,
        'Additional Insured': none,
        'Waiver of Subrogation': none,
        'Primary & Non-Contributory': none,
        'Certificate Holder': none,
      },
      accept: { 'requirements.Property Damage': 'either' },
    },
    f,
    shortDate,
  );
  t.true(s.facts.landlord.right);
  t.true(s.facts.tenant.right);
  t.true(s.facts.propertyAddress.right);
  t.true(s.checks['General Liability'].right);
  t.true(s.checks['Property Damage'].right);
  t.false(s.checks['Workers Compensation'].right);
  t.true(s.checks['Auto Liability'].right);
});

test('a summary flattened into running text: numbered items run on within a line are entries, a label wrapped round its date is read, and the building beats the project', (t) => {
  const f = leaseFacts([
    page(1, [
      'OFFICE LEASE This Office Lease is made by and between KESTREL TOWER OWNER LLC, a Delaware limited liability',
      'company ("Landlord"), and NIMBUS ANALYTICS, INC., a Delaware corporation ("Tenant"). BASIC LEASE TERMS',
      '1. Date: May 4, 2026 2. Premises (Article 1). 2.1 Building: 410 Harbor Boulevard Oakland, California 94607',
      '2.2 Premises: About 5,200 rentable square feet on the fourth floor of the Building, known as Suite 410.',
      '2.3 Project: The Building and the neighbouring buildings at 400 and 420 Harbor Boulevard, Oakland, California',
      '3. Term (Article 2). 3.1 Length of Term: Five (5) years. 3.2 Lease Commencement June 1, 2026. Date: 3.3 Lease',
      'Expiration Date: The last day of the sixtieth (60th) full calendar month of the Lease Term. 4. Base Rent: $9,100.',
    ]),
  ]);
  t.is(f.landlord?.value, 'KESTREL TOWER OWNER LLC');
  t.is(f.tenant?.value, 'NIMBUS ANALYTICS, INC.');
  t.is(f.propertyAddress?.value, '410 Harbor Boulevard, Suite 410, Oakland, California 94607');
  t.is(f.leaseStart?.value, '2026-06-01');
  t.is(f.leaseStart?.page, 1);
  t.is(f.leaseEnd, null);
  t.regex(f.termRules.end?.value ?? '', /sixtieth \(60th\) full calendar month/);
});

test('a unit stated before the street joins the building stated after it: "Suite B … located at 55 Mill Road, Building 4"', (t) => {
  const f = leaseFacts([
    page(1, [
      'DEFINITIONS. "Leased Premises": the space known as Suite B, shown on Exhibit A, within the building located at',
      '55 Mill Road, Building 4, Dalton Georgia, containing 80,000 rentable square feet.',
    ]),
  ]);
  t.is(f.propertyAddress?.value, '55 Mill Road, Building 4, Suite B, Dalton, Georgia');
});

test('insurance written as flattened text: the limits of a liability cover whose scope names property damage, across a page break; contractors\u2019 and headings\u2019 words are not the tenant\u2019s requirements', (t) => {
  const f = leaseFacts([
    page(1, [
      'ARTICLE 9 Insurance, Subrogation, and Waiver of Claims 9.1 Alterations. Before any alteration, Tenant shall give Landlord',
      'proof that its general contractor carries builder’s risk insurance and workers’ compensation insurance, and shall deliver',
      'certificates of insurance from all contractors doing work in the Premises or elsewhere in the Building, showing business',
      'automobile liability insurance of not less than $2,000,000. 9.2 Tenant’s Insurance. Tenant shall carry the coverages below.',
      'Tenant may buy whatever more insurance it may think prudent. 9.2.1 Commercial General Liability Insurance covering claims for',
      'bodily injury, personal injury and property damage arising from Tenant’s use of the Premises, with limits of not less than',
    ]),
    page(2, [
      '$3,000,000 each occurrence and $6,000,000 annual aggregate 9.2.2 Workers’ Compensation insurance under all applicable',
      'state statutes. 9.3 Form of Policies. Such insurance shall name Landlord as an additional insured and shall be primary and',
      'non-contributory. Tenant shall deliver the policies or certificates thereof to Landlord before the Commencement Date.',
      'Tenant shall also name Landlord as additional insured under all liability, excess and umbrella policies Tenant carries.',
    ]),
  ]);
  const gl = f.requirements.liability!;
  t.is(gl.page, 1);
  t.is(gl.amount, 3000000);
  t.is(gl.aggregate, 6000000);
  t.is(gl.amountSource?.page, 2);
  t.is(gl.amountSource?.how, 'continued');
  t.is(f.requirements.workersComp?.page, 2);
  t.true(f.requirements.workersComp?.statutory);
  t.is(f.requirements.auto, undefined);
  t.is(f.requirements.umbrella, undefined);
  t.is(f.requirements.waiverOfSubrogation, undefined);
  t.is(f.requirements.certificateHolder?.page, 2);
  t.is(f.requirements.additionalInsured?.page, 2);
  t.is(f.requirements.primaryNonContributory?.page, 2);
});

test('never a false pass: a lease with a page OCR read with low confidence gives no "Not required" pass, and summary.uncertain counts those verdicts', async (t) => {
  const { buildResult } = await import('../../../pipelines/lease/index.ts');
  const lines = [
    'RESIDENTIAL LEASE between Cedar Row Apartments LLC ("Landlord") and Jordan Lee ("Tenant").',
    'Premises: 12 Elm Street, Apt 4B, Springfield, Illinois 62701',
    'Lease Start Date: January 1, 2026   Lease End Date: December 31, 2026',
    'Tenant shall maintain renters insurance with personal liability of at least $100,000.',
  ];
  const scanned = { ...page(2, ['Tenant shall ma1ntain aut0 l1ab1l1ty 1nsurance of $50O,00O']), source: 'ocr' as const, confidence: 0.41 };
  const docOf = (pages: PageText[]) => readDocument(pages, 'mixed');
  const ins = (l: ReturnType<typeof leaseStage>) =>
    ({
      document: { ...l.document, lowConfidencePages: [] },
      facts: insuranceFacts({
        carrier: { value: 'Evergreen Indemnity', page: 1, text: 'Evergreen Indemnity' },
        policyNumber: { value: 'RN-1', page: 1, text: 'RN-1' },
        insured: { value: 'Jordan Lee', page: 1, text: 'Jordan Lee' },
        effectiveDate: { value: '2026-01-01', page: 1, text: '01/01/2026' },
        expirationDate: { value: '2027-01-01', page: 1, text: '01/01/2027' },
        liability: { value: 300000, page: 1, text: '$300,000', label: 'Personal Liability' },
        propertyAddress: { value: '12 Elm Street, Apt 4B, Springfield, IL 62701', page: 1, text: '12 Elm Street', from: 'premises' as const },
      }),
      extracted: {} as never,
      dropped: [],
    }) as Parameters<typeof buildResult>[1];
  const clean = leaseStage(docOf([page(1, lines)]));
  const good = buildResult(clean, ins(clean), '2026-02-15');
  t.is(good.comparison.find((c) => c.field === 'Auto Liability')!.status, 'pass');
  t.is(good.comparison.find((c) => c.field === 'General Liability')!.status, 'pass');

  const l = leaseStage(docOf([page(1, lines), scanned]));
  t.deepEqual(l.document.lowConfidencePages, [2]);
  const r = buildResult(l, ins(l), '2026-02-15');
  for (const field of ['Auto Liability', 'Workers Compensation', 'Umbrella/Excess Liability', 'Professional Liability', 'Waiver of Subrogation'] as const) {
    const c = r.comparison.find((x) => x.field === field)!;
    t.is(c.status, 'warning', field);
    t.regex(c.gap ?? '', /page 2 was read by OCR with low confidence; that it is not required is uncertain/, field);
  }
  // A requirement read on the good page still passes on its own evidence; no verdict passes on the bad page's silence.
  t.is(r.comparison.find((c) => c.field === 'General Liability')!.status, 'pass');
  t.false(r.comparison.some((c) => c.status === 'pass' && c.leaseRequired === 'Not required'));
  t.true(r.summary.uncertain >= 5);

  // A page OCR could not read at all (it failed there, or was off for a page without a text layer) is no evidence either.
  for (const errors of [
    [{ stage: 'ocr', page: 2, message: 'the OCR engine failed on this page' }],
    [{ stage: 'ocr', message: 'OCR is off; 1 page(s) without a text layer were not read' }],
  ]) {
    const blank = { ...page(2, []), source: 'empty' as const, confidence: 0 };
    const u = leaseStage({ ...docOf([page(1, lines), blank]), errors } as unknown as DocumentText);
    t.deepEqual(u.document.unreadPages, [2]);
    const ur = buildResult(u, ins(u), '2026-02-15');
    const auto = ur.comparison.find((x) => x.field === 'Auto Liability')!;
    t.is(auto.status, 'warning');
    t.regex(auto.gap ?? '', /page 2 could not be read; that it is not required is uncertain/);
    t.is(ur.comparison.find((c) => c.field === 'General Liability')!.status, 'pass');
  }
});

test('a coverage the landlord may require later is neither required nor a "Not required" pass: its verdict is a warning quoting the words', async (t) => {
  const { compare } = await import('../../../pipelines/lease/index.ts');
  const f = leaseFacts([
    page(1, [
      '12. INSURANCE. Tenant shall maintain commercial general liability insurance of not less than $1,000,000 per occurrence.',
      'Landlord may from time to time require Tenant to carry umbrella liability insurance in an amount Landlord reasonably sets.',
      'Tenant may keep its property insurance under a blanket policy.',
    ]),
  ]);
  t.is(f.requirements.liability?.amount, 1000000);
  t.false(f.requirements.umbrella?.required);
  t.regex(f.requirements.umbrella?.uncertain ?? '', /lets the landlord require it \("Landlord may from time to time require"\)/);
  const ins = insuranceFacts({
    kind: 'certificate',
    policyType: 'Certificate of Liability Insurance',
    liability: { value: 1000000, page: 1, text: '$1,000,000', label: 'Each Occurrence' },
    hasCertificateHolderSection: true,
  });
  const umbrella = compare(f, ins as never, { asOf: '2026-02-15' }).find((c) => c.field === 'Umbrella/Excess Liability')!;
  t.is(umbrella.status, 'warning');
  t.regex(umbrella.gap ?? '', /uncertain: the lease lets the landlord require it/);
  // A later clause that requires it settles it.
  const later = leaseFacts([
    page(1, [
      'Landlord may from time to time require Tenant to carry umbrella liability insurance.',
      'In any case Tenant shall maintain umbrella liability insurance of not less than $2,000,000.',
    ]),
  ]);
  t.true(later.requirements.umbrella?.required);
  t.is(later.requirements.umbrella?.amount, 2000000);
  t.is(later.requirements.umbrella?.uncertain, undefined);
});

test('one long list sentence: permission is read in its own item, another coverage\u2019s "liability insurance" is not general liability, and "bodily injury, broad form property damage" does not end the limits', (t) => {
  const f = leaseFacts([
    page(1, [
      '14.1 Tenant shall keep in force: (a) insurance on its fixtures naming Landlord as loss payee as its interest may',
      'appear, (b) if Tenant owns vehicles, automobile liability insurance with limits of not less than $750,000 combined',
      'single limit, (c) commercial general liability insurance covering bodily injury, broad form property damage and',
      'personal injury with limits of not less than $4,000,000 aggregate/$2,000,000 each occurrence, and (d) workers’',
      'compensation insurance as required by law.',
    ]),
  ]);
  t.is(f.requirements.liability?.amount, 2000000);
  t.is(f.requirements.liability?.aggregate, 4000000);
  t.regex(f.requirements.liability?.clause ?? '', /\(c\) commercial general liability/);
  t.is(f.requirements.auto?.amount, 750000);
  t.true(f.requirements.workersComp?.required);
  t.true(f.requirements.workersComp?.statutory);
});
