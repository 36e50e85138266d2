// Leases worded the older or plainer ways: a housing authority's "PHA", an indenture in capitals, a tenancy "to and
// including" its last day, a month-to-month tenancy named before its start, insurance "held", requirements kept in
// an exhibit the insurance clause points to, a listing that takes either role, and a condition after the coverage.
import test from 'ava';
import { compare } from '../../../pipelines/lease/compare.ts';
import { leaseFacts } from '../../../pipelines/lease/lease_facts.ts';
import { factsOfLines, insuranceFacts, linesPage } from '../../helpers/lease.ts';

test('a housing authority ("PHA") is the landlord; an address in capitals is read as the page writes it', (t) => {
  const pha = factsOfLines(['This Lease is entered into between the Housing Authority of the City of Dayton ("PHA") and Tamara Wells ("Tenant").']);
  t.is(pha.landlord?.value, 'Housing Authority of the City of Dayton');
  const caps = factsOfLines([
    'WITNESSETH: The Lessor does hereby lease unto the Lessee the store premises situated at 214 MAIN STREET, NAPA, CALIFORNIA 94559, for a term of three years.',
  ]);
  t.is(caps.propertyAddress?.value, '214 MAIN STREET, NAPA, CALIFORNIA 94559');
});

test('term: "a fixed term starting on the 1st day of July 2026 to and including the 30th day of June 2027"; "a month-to-month tenancy beginning …"', (t) => {
  const fixed = factsOfLines(['2. The tenancy is for a fixed term starting on the 1st day of July 2026 to and including the 30th day of June 2027.']);
  t.is(fixed.leaseStart?.value, '2026-07-01');
  t.is(fixed.leaseEnd?.value, '2027-06-30');
  const open = factsOfLines(['TERM.', 'This is a month-to-month tenancy beginning October 15, 2026, which either party may end on 30 days written notice.']);
  t.is(open.leaseStart?.value, '2026-10-15');
  t.is(open.leaseEnd, null);
  t.truthy(open.openTerm);
});

test('insurance the tenant must "hold", and requirements in the exhibit the insurance clause points to (a condition after the coverage kept)', (t) => {
  t.is(
    factsOfLines(['The Tenants shall at all times during the tenancy hold renters insurance with personal liability coverage of at least $100,000.'])
      .requirements.liability?.amount,
    100_000,
  );
  const lease = leaseFacts([
    linesPage(1, [
      'Landlord: Lakepointe Tower Owner LLC',
      'Tenant: Vireo Legal Services, P.C.',
      '12. INSURANCE. Tenant shall carry the insurance described in Exhibit C.',
    ]),
    linesPage(2, [
      "EXHIBIT C - TENANT'S INSURANCE",
      '(a) Commercial general liability insurance with limits of not less than $1,000,000 per occurrence and $2,000,000 general aggregate.',
      '(b) Professional liability insurance with limits of not less than $2,000,000 per claim.',
      "(c) Workers' compensation insurance as required by Texas law, if Tenant elects to subscribe.",
      'EXHIBIT D - RULES AND REGULATIONS',
      '1. Landlord shall maintain property insurance of not less than $5,000,000 on the Building.',
    ]),
  ]).requirements;
  t.true(lease.liability?.required);
  t.is(lease.liability?.amount, 1_000_000);
  t.is(lease.professional?.amount, 2_000_000);
  t.false(lease.workersComp?.required ?? true);
  t.regex(lease.workersComp?.uncertain ?? '', /condition/);
});

test('a listing that takes either role ("as additional insured or interested party") is met by either on the policy, not by a certificate holder', (t) => {
  const lines = [
    'This Lease Agreement is made by Summit View Apartments LP ("Owner") and Carlos Mendoza ("Resident").',
    'Resident shall maintain renters insurance and shall name Owner as additional insured or interested party.',
  ];
  const status = (role: 'interested_party' | 'certificate_holder') =>
    compare(factsOfLines(lines), insuranceFacts({ parties: [{ value: 'Summit View Apartments LP', page: 1, text: 'Summit View Apartments LP', role }] }), {
      asOf: '2026-09-10',
    }).find((c) => c.field === 'Additional Insured')!.status;
  t.true(factsOfLines(lines).requirements.additionalInsured?.eitherRole);
  t.is(status('interested_party'), 'pass');
  t.not(status('certificate_holder'), 'pass');
});
