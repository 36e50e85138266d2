// How residential and small commercial leases introduce their parties, premises and term, and state insurance,
// in wordings the generated pairs did not use (issue 29's held-out probes): each cause on a generated page.
import test from 'ava';
import { factsOfLines, linesPage, row } from '../../helpers/lease.ts';
import { chosenOptions } from '../../../pipelines/lease/lease_requirements.ts';

/** A page of lines; a line may hold cells at their own x. */
const page = linesPage;
const facts = factsOfLines;

test('an owner acting through its agent: the owner is the landlord, the agent its manager; several residents are the tenant', (t) => {
  const f = facts([
    'This Lease is made between Alder Creek Homes LLC ("Landlord"), by and through its agent, Northgate Realty',
    'Services, Inc. ("Agent"), and Paula Reyes and Omar Haddad ("Resident," whether one or more).',
  ]);
  t.is(f.landlord?.value, 'Alder Creek Homes LLC');
  t.regex(f.manager?.value ?? '', /^Northgate Realty Services, Inc/);
  t.is(f.tenant?.value, 'Paula Reyes and Omar Haddad');
  const g = facts([
    'This Rental Agreement is entered into by Fernwood Owner LLC, by and through its agent, Tidewater Property Group',
    '(collectively "Owner"), and Lena Park and Victor Hale (collectively "Residents").',
  ]);
  t.is(g.landlord?.value, 'Fernwood Owner LLC');
  t.is(g.manager?.value, 'Tidewater Property Group');
  t.is(g.tenant?.value, 'Lena Park and Victor Hale');
});

test('roles written without "as" or parentheses, "hereinafter called", and labels inside a sentence', (t) => {
  const a = facts(['This Lease is made between Crescent Rentals Inc., Lessor, and Ian Moss, Lessee, for the house described below.']);
  t.is(a.landlord?.value, 'Crescent Rentals Inc.');
  t.is(a.tenant?.value, 'Ian Moss');
  const b = facts([
    'This Dwelling Lease is made between the Dayton Housing Authority, hereinafter called "Landlord", and Ruth Cole, hereinafter called "Tenant".',
  ]);
  t.is(b.landlord?.value, 'Dayton Housing Authority');
  t.is(b.tenant?.value, 'Ruth Cole');
  const c = facts([
    'PARTIES: The parties to this lease are the owner of the Property, Landlord: Mesa Verde Rentals LLC; and Tenant(s): Luis Ortega and Eva Ortega.',
  ]);
  t.is(c.landlord?.value, 'Mesa Verde Rentals LLC');
  t.is(c.tenant?.value, 'Luis Ortega and Eva Ortega');
});

test('a summary row holding a name and its notice address gives the name only', (t) => {
  const f = facts([
    row('PARTY', 'NAME AND NOTICE ADDRESS'),
    row('Landlord', 'Bayview Office Partners LLC, 12 Harbor Road, Tampa, FL 33602'),
    row('Tenant', 'Coastal Orthodontics, P.A., at the Premises'),
  ]);
  t.is(f.landlord?.value, 'Bayview Office Partners LLC');
  t.is(f.tenant?.value, 'Coastal Orthodontics, P.A.');
});

test('a sublease names its own landlord and tenant as sublessor and subtenant', (t) => {
  const f = facts(['SUBLEASE AGREEMENT', 'This Sublease is made on March 3, 2026 between Noah Fisher ("Sublessor") and Ada Kim ("Subtenant").']);
  t.is(f.landlord?.value, 'Noah Fisher');
  t.is(f.tenant?.value, 'Ada Kim');
});

test('term: "Lease Begins" / "Lease Expiration" labels, "for a term beginning … and ending …", a month-to-month tenancy with no end', (t) => {
  const a = facts([row('Lease Begins:', '03/01/2026'), row('Lease Expiration:', '02/28/2027')]);
  t.is(a.leaseStart?.value, '2026-03-01');
  t.is(a.leaseEnd?.value, '2027-02-28');
  const b = facts(['1. TERM. Owner rents the house to Resident for a term of one year beginning July 1, 2026 and ending June 30, 2027.']);
  t.is(b.leaseStart?.value, '2026-07-01');
  t.is(b.leaseEnd?.value, '2027-06-30');
  const c = facts(['2. TERM. The tenancy shall begin on 05/15/2026 and shall continue on a month-to-month basis until either party gives notice.']);
  t.is(c.leaseStart?.value, '2026-05-15');
  t.is(c.leaseEnd, null);
  t.is(c.openTerm?.value, 'month-to-month');
  // A holdover's month-to-month tenancy after a fixed term is no open term.
  const d = facts([
    'The term of this Lease shall begin on May 1, 2026.',
    'HOLDING OVER. If Tenant remains in possession after the term ends, the tenancy shall be month-to-month.',
  ]);
  t.is(d.openTerm, null);
});

test('premises stated as "the apartment at …" or "the residence at …"', (t) => {
  const f = facts(['Landlord rents to Resident the apartment at 31 Quarry Road, Apt 2, Barre, VT 05641 (the "Premises").']);
  t.is(f.propertyAddress?.value, '31 Quarry Road, Apt 2, Barre, VT 05641');
  const g = facts(['This Lease is for the single family residence at 8 Heron Way, Lewes, Delaware 19958.']);
  t.is(g.propertyAddress?.value, '8 Heron Way, Lewes, Delaware 19958');
});

test('checkbox choices are read as ticked: "Tenant [X] is [ ] is not required" requires, the other tick does not', (t) => {
  t.is(chosenOptions('Tenant [X] is [ ] is not required to maintain liability insurance.'), 'Tenant is required to maintain liability insurance.');
  t.is(chosenOptions('Tenant [ ] is [X] is not required to maintain liability insurance.'), 'Tenant is not required to maintain liability insurance.');
  t.is(chosenOptions('No box ticked [ ] here.'), 'No box ticked [ ] here.');
  const on = facts(['12. INSURANCE: Tenant [X] is [ ] is not required to maintain personal liability insurance of at least $300,000 per occurrence.']);
  t.is(on.requirements.liability?.required, true);
  t.is(on.requirements.liability?.amount, 300000);
  // The quote is the clause as the page writes it, boxes and all.
  t.regex(on.requirements.liability?.clause ?? '', /\[X\] is \[ \] is not/);
  const off = facts(['12. INSURANCE: Tenant [ ] is [X] is not required to maintain personal liability insurance of at least $300,000 per occurrence.']);
  t.is(off.requirements.liability?.required ?? false, false);
  t.falsy(off.requirements.liability?.uncertain);
});

test('a coverage named with a limit but no duty the rules can read is uncertain, never silently "Not required"', (t) => {
  const f = facts(['INSURANCE. Personal liability coverage for the Resident in the amount of $300,000 per occurrence.']);
  t.is(f.requirements.liability?.required, false);
  t.regex(f.requirements.liability?.uncertain ?? '', /limit of \$300,000, but no duty/);
});

test('a lease that takes a declarations page as proof asks for no certificate holder; one that asks for a certificate does', (t) => {
  const dec = facts(['Resident shall keep renters insurance in force and shall give Owner a certificate of insurance or the declarations page of the policy.']);
  t.is(dec.requirements.renters?.required, true);
  t.is(dec.requirements.certificateHolder, undefined);
  const cert = facts(['Resident shall keep renters insurance in force and shall give Owner a certificate of insurance before move-in.']);
  t.is(cert.requirements.certificateHolder?.required, true);
});

test('a certificate\'s remarks "X is additional insured" (no "named as") name X as additional insured; "is not" does not', async (t) => {
  const { extractPolicy, insuranceFacts } = await import('../../../pipelines/lease/insurance_facts.ts');
  const read = (line: string) => {
    const pages = [page(1, ['REMARKS:', line])];
    return insuranceFacts(pages, extractPolicy(pages)).parties;
  };
  t.true(
    read('Harbor Yard Holdings LLC is additional insured with respect to general liability.').some(
      (p) => p.role === 'additional_insured' && p.value === 'Harbor Yard Holdings LLC',
    ),
  );
  t.false(read('Harbor Yard Holdings LLC is not additional insured under this policy.').some((p) => p.role === 'additional_insured'));
  // A number of the name's own is no address the name runs on from; a ZIP is.
  t.true(read('ARE-San Diego No. 12, LLC is additional insured as respects general liability.').some((p) => p.value === 'ARE-San Diego No. 12, LLC'));
  t.true(read('Location: 12 Elm Street, Dover, DE 19901, Harbor Yard Holdings LLC is additional insured.').some((p) => p.value === 'Harbor Yard Holdings LLC'));
});

test('labelled cells side by side on one line, and a "Term:" entry "from 3/1/26 to 2/28/27"', (t) => {
  const f = facts([row('Landlord: Birchwood Lofts LLC', 'Tenant: Ava Stone, Ben Stone and Cy Stone', 320), 'Term: from 3/1/26 to 2/28/27']);
  t.is(f.landlord?.value, 'Birchwood Lofts LLC');
  t.is(f.tenant?.value, 'Ava Stone, Ben Stone and Cy Stone');
  t.is(f.leaseStart?.value, '2026-03-01');
  t.is(f.leaseEnd?.value, '2027-02-28');
});

test('a residential lease that forbids business on the premises is still residential', (t) => {
  const f = facts(['RENTAL AGREEMENT', 'Resident: Ava Stone', 'No business shall be conducted on the Premises.']);
  t.is(f.type, 'residential');
});

test('dates written out as forms write them: "the first (1st) day of June, 2026", "the 30th day of September, 2027"', async (t) => {
  const { writtenDates } = await import('../../../pipelines/lease/lease_term.ts');
  t.is(writtenDates('on the first (1st) day of June, 2026'), 'on June 1, 2026');
  t.is(writtenDates('the twenty-first day of March 2027'), 'March 21, 2027');
  const f = facts(['2. TERM. The term of this Lease shall begin on the 1st day of October, 2026 and end on the 30th day of September, 2027.']);
  t.is(f.leaseStart?.value, '2026-10-01');
  t.is(f.leaseEnd?.value, '2027-09-30');
  // Grounded on its page through the quoted text: the checker keeps it.
  const { leaseStage } = await import('../../../pipelines/lease/index.ts');
  const { readDocument } = await import('../../helpers/lease.ts');
  const staged = leaseStage(
    readDocument([page(1, ['2. TERM. The term of this Lease shall begin on the 1st day of October, 2026 and end on the 30th day of September, 2027.'])]),
  );
  t.is(staged.facts.leaseStart?.value, '2026-10-01');
  t.is(staged.facts.leaseEnd?.value, '2027-09-30');
});

test('the manager from "Landlord\'s Managing Agent:" or "Owner\'s management company is X"; the term "November 1, 2026 through October 31, 2027"', (t) => {
  const a = facts([row("Landlord's Managing Agent:", 'Keel Realty Advisors')]);
  t.is(a.manager?.value, 'Keel Realty Advisors');
  const b = facts([
    'This Apartment Lease is between Dune Crest Apartments LP ("Owner") and Mia Cho ("Resident"). Owner\'s management company is Alder Residential LLC.',
    'Lease term: November 1, 2026 through October 31, 2027.',
  ]);
  t.is(b.manager?.value, 'Alder Residential LLC');
  t.is(b.leaseStart?.value, '2026-11-01');
  t.is(b.leaseEnd?.value, '2027-10-31');
});

test('headings "OWNER  RESIDENT(S)" over their values; "ends at 11:59 p.m. on …"; an agent named in passing in the insurance clause', (t) => {
  const f = facts([
    row('OWNER', 'RESIDENT(S)', 320),
    row('Quarry Hill Flats LLC', 'Iris Novak', 320),
    '2. TERM. The Lease begins on June 15, 2026 and ends at 11:59 p.m. on June 14, 2027.',
    '9. INSURANCE. Resident shall keep renters insurance naming Owner and its managing agent, Granite Bay Management Co., as additional insureds.',
  ]);
  t.is(f.landlord?.value, 'Quarry Hill Flats LLC');
  t.is(f.tenant?.value, 'Iris Novak');
  t.is(f.leaseStart?.value, '2026-06-15');
  t.is(f.leaseEnd?.value, '2027-06-14');
  t.is(f.manager?.value, 'Granite Bay Management Co.');
});

test('"Landlord/Agent:" names the landlord; "Demised Premises" is the premises; "bodily injury and property damage" is no property damage requirement', (t) => {
  const f = facts([
    row('Landlord/Agent:', 'Aspen Row Realty Inc.'),
    '1.01 "Demised Premises" means Suite 12 in the building at 40 Mill Pond Road, Keene, NH 03431.',
    '9.01 Lessee shall keep in force public liability insurance with a combined single limit of $1,000,000 for bodily injury and property damage.',
  ]);
  t.is(f.landlord?.value, 'Aspen Row Realty Inc.');
  t.is(f.propertyAddress?.value, '40 Mill Pond Road, Suite 12, Keene, NH 03431');
  t.is(f.requirements.liability?.amount, 1000000);
  t.is(f.requirements.propertyDamage, undefined);
});

test('a coverage required only if the tenant does something the documents do not state is uncertain, not required and not a fail', (t) => {
  const f = facts([
    'INSURANCE. Tenant is not required to purchase renter’s insurance. However, if Tenant keeps a waterbed in the Premises, Tenant shall carry liability insurance of at least $100,000.',
  ]);
  t.is(f.requirements.liability?.required, false);
  t.regex(f.requirements.liability?.uncertain ?? '', /only on a condition \("if Tenant keeps a waterbed/);
  // "If Tenant fails to maintain …" is a remedy, not a condition of the duty.
  const g = facts(['Tenant shall carry liability insurance of at least $100,000. If Tenant fails to maintain it, Landlord may buy it at Tenant’s cost.']);
  t.is(g.requirements.liability?.required, true);
});
