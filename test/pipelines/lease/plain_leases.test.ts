// Leases written by small landlords and old forms, as an independent writer worded them: "KNOW ALL PERSONS … that
// X, the record owner …", "is called the Sublessor", "I" and "you" defined, a couple, a signer for a trust or an
// agent, dates with dashes or set by a duration, a term whose start is a rule and whose end is a date, state routes,
// townhouses, a premises heading on its own, and a coverage required only if the tenant offers a service.
import test from 'ava';
import { sameParty } from '../../../pipelines/lease/text.ts';
import { factsOfLines, row } from '../../helpers/lease.ts';

test('parties: "KNOW ALL PERSONS … that X, the record owner …", "is called the Sublessor", "I" and "you" defined, a couple with its address', (t) => {
  const know = factsOfLines([
    'KNOW ALL PERSONS BY THESE PRESENTS that Harriet M. Quill, the record owner of the unit described below (hereinafter "Lessor"), does hereby lease unto Tomasz Wierzbicki (hereinafter "Lessee") the unit.',
  ]);
  t.is(know.landlord?.value, 'Harriet M. Quill');
  t.is(know.tenant?.value, 'Tomasz Wierzbicki');
  const sublet = factsOfLines([
    'Jordan Pike, the tenant of record under a lease with Lincoln Park Flats LLC (the "Master Landlord"), is called the Sublessor in this agreement. Mei-Lin Cho is called the Sublessee.',
  ]);
  t.is(sublet.landlord?.value, 'Jordan Pike');
  t.is(sublet.tenant?.value, 'Mei-Lin Cho');
  const plain = factsOfLines(['In this agreement "I" and "me" mean Wendell P. Haas and "you" means Bighorn Barber Co. LLC.']);
  t.is(plain.landlord?.value, 'Wendell P. Haas');
  t.is(plain.tenant?.value, 'Bighorn Barber Co. LLC');
  const nj = factsOfLines([
    'This Lease is made on June 12, 2026 between RAYMOND ALVARADO and TERESA ALVARADO, whose address is 9 Birch Hollow Lane, Princeton Junction, New Jersey 08550, referred to as the Landlord, and DEVIN MARSH and KELSEY MARSH, referred to as the Tenant.',
  ]);
  t.is(nj.landlord?.value, 'RAYMOND ALVARADO and TERESA ALVARADO');
  t.is(nj.tenant?.value, 'DEVIN MARSH and KELSEY MARSH');
  t.true(sameParty('Earl Tidwell and Doris Tidwell', 'Earl and Doris Tidwell'));
  t.false(sameParty('Earl Tidwell and Doris Tidwell', 'Earl and Dora Tidwell'));
});

test('summary rows: "Landlord(s):" a couple "husband and wife", "House rented:", and who signs for a party is not the party', (t) => {
  const f = factsOfLines([
    row('Landlord(s):', 'Earl Tidwell and Doris Tidwell, husband and wife', 160),
    row('Tenant:', 'Brandon Keys', 160),
    row('House rented:', '1104 Locust St., Rolla, MO 65401', 160),
  ]);
  t.is(f.landlord?.value, 'Earl Tidwell and Doris Tidwell');
  t.is(f.propertyAddress?.value, '1104 Locust St., Rolla, MO 65401');
  t.is(factsOfLines([row('OWNER/AGENT:', 'Alder Street Holdings LLC, by Cascadia Rental Services, Agent', 170)]).landlord?.value, 'Alder Street Holdings LLC');
  const trust = factsOfLines([
    'THIS GROUND LEASE is entered into by and between OKAFOR FAMILY LAND TRUST, by Adaeze Okafor, its Trustee ("Lessor"), and QUICKFUEL STATIONS OF OHIO, INC. ("Lessee").',
  ]);
  t.is(trust.landlord?.value, 'OKAFOR FAMILY LAND TRUST');
  // "by and between" is no signer.
  t.is(
    factsOfLines([
      'THIS LEASE is made this 15th day of June, 2026, by and between WILLOW CREEK PLAZA ASSOCIATES, LLC ("Landlord"), and ROSA DELGADO ("Tenant").',
    ]).landlord?.value,
    'WILLOW CREEK PLAZA ASSOCIATES, LLC',
  );
});

test('terms: dashes, "ending on, and including,", a duration from a start, a start set by a rule with a stated end, "the last day of January, 2046" before an option', (t) => {
  const dashed = factsOfLines(['2. Term. The Term of this Lease is for one year, starting 7-1-2026 and ending 6-30-2027.']);
  t.is(dashed.leaseStart?.value, '2026-07-01');
  t.is(dashed.leaseEnd?.value, '2027-06-30');
  const including = factsOfLines([
    'TERM. For and during the period commencing on the first (1st) day of July, 2026 and ending on, and including, the thirtieth (30th) day of June, 2027.',
  ]);
  t.is(including.leaseStart?.value, '2026-07-01');
  t.is(including.leaseEnd?.value, '2027-06-30');
  const duration = factsOfLines(['LEASE TERM.', 'The lease shall be for a period of twelve (12) months beginning on the first day of March, 2026.']);
  t.is(duration.leaseStart?.value, '2026-03-01');
  t.is(duration.leaseEnd?.value, '2027-02-28');
  const consent = factsOfLines([
    "2. Term. The term of this Sublease shall commence on the later of (i) June 1, 2026 and (ii) the date on which Master Landlord's written consent is delivered, and shall expire on May 30, 2029, unless sooner terminated.",
  ]);
  t.is(consent.leaseStart, null);
  t.is(consent.leaseEnd?.value, '2029-05-30');
  t.truthy(consent.termRules.start);
  const ground = factsOfLines([
    'ARTICLE II - TERM. The primary term shall commence on the 1st day of February, 2026, and end on the last day of January, 2046, with four (4) options to extend of five (5) years each.',
  ]);
  t.is(ground.leaseStart?.value, '2026-02-01');
  t.is(ground.leaseEnd?.value, '2046-01-31');
});

test('premises: "N. State Route 48", "Townhouse 14", a "1.01 Premises." heading on its own; a coverage required only "if Tenant offers delivery"', (t) => {
  t.is(
    factsOfLines(['Lessor leases to Lessee the land commonly known as 2890 N. State Route 48, Lebanon, Ohio 45036.']).propertyAddress?.value,
    '2890 N. State Route 48, Lebanon, Ohio 45036',
  );
  t.is(
    factsOfLines(['The Landlord leases to the Tenant the townhouse known as 22 Quail Ridge Rd., Townhouse 14, Plainsboro, NJ 08536.']).propertyAddress?.value,
    '22 Quail Ridge Rd., Townhouse 14, Plainsboro, NJ 08536',
  );
  t.is(
    factsOfLines([
      '1.01 Premises.',
      'Space 112 of Brookhaven Crossing Shopping Center, 4410 Lawrenceville Hwy, Tucker, GA 30084, containing 2,950 square feet.',
    ]).propertyAddress?.value,
    '4410 Lawrenceville Hwy, Space 112, Tucker, GA 30084',
  );
  const auto = factsOfLines([
    'Tenant shall carry at all times: (a) commercial general liability insurance of $1,000,000 per occurrence; (b) if Tenant offers delivery or catering using vehicles owned or hired by Tenant, business automobile liability insurance of $1,000,000 combined single limit.',
  ]).requirements.auto;
  t.false(auto?.required ?? true);
  t.regex(auto?.uncertain ?? '', /condition/);
});

test('forms filled by typing over their blanks, labels with names and addresses, and the units older houses have', (t) => {
  const typed = factsOfLines([
    "LANDLORD'S NAME: ___Lakeshore Senior Living Partners, Ltd.___",
    "TENANT'S NAME: ___Dorothy M. Feldman___",
    '1. Term. Landlord leases to Tenant Apartment ___214___ of Coral Ridge Towers, located at ___3300 N.E. 36th Street, Fort Lauderdale, Florida 33308___, for a term of ___12 months___, beginning on ___06-01-2026___ and ending on ___05-31-2027___.',
  ]);
  t.is(typed.landlord?.value, 'Lakeshore Senior Living Partners, Ltd.');
  t.is(typed.tenant?.value, 'Dorothy M. Feldman');
  t.is(typed.leaseStart?.value, '2026-06-01');
  t.is(typed.leaseEnd?.value, '2027-05-31');
  const ny = factsOfLines([
    "Tenant's Name(s) and Address: Yusuf Haddad, Leila Haddad, 1840 Grand Concourse, Apt. 5C, Bronx, NY 10457",
    "Owner's/Agent's Name and Address: Concourse Tower Associates LLC, c/o Parkchester Realty Mgmt. Corp., 1 Metropolitan Oval, Bronx, NY 10462",
  ]);
  t.is(ny.landlord?.value, 'Concourse Tower Associates LLC');
  const flat = factsOfLines([
    'Landlords: Victor Marchetti and Helen Marchetti, 1508 W. 65th St., Cleveland, OH 44102',
    'Tenant: Samuel Oyelaran. Occupant: Grace Oyelaran (minor child), who is not a party to this lease.',
    'Premises: 1506 W. 65th St., Unit LL (lower level / basement apartment), Cleveland, OH 44102',
  ]);
  t.is(flat.tenant?.value, 'Samuel Oyelaran');
  t.is(flat.propertyAddress?.value, '1506 W. 65th St., Unit LL, Cleveland, OH 44102');
  t.is(
    factsOfLines(['Landlord rents to Resident the dwelling commonly known as 1214 1/2 N. Alvarado St., Rear Unit, Los Angeles, CA 90026.']).propertyAddress
      ?.value,
    '1214 1/2 N. Alvarado St., Rear Unit, Los Angeles, CA 90026',
  );
  t.is(
    factsOfLines([row('Roomer:', 'Nkechi Obi', 190), row('House:', '5607 Avenue H, Austin, Texas 78751', 190)]).propertyAddress?.value,
    '5607 Avenue H, Austin, Texas 78751',
  );
  t.is(factsOfLines([row('Roomer:', 'Nkechi Obi', 190)]).tenant?.value, 'Nkechi Obi');
  // A recording reference is never a name.
  t.is(
    factsOfLines([
      'Ruth A. Kessler, Trustee of a trust recorded with the Hampshire County Registry of Deeds in Book 9921, Page 140 (together, "Landlord"), lease to Hollis CPAs, LLP ("Tenant").',
    ]).landlord,
    null,
  );
});

test('an extension agreement: its new term, not the original lease\'s; "leases to Tenants the house … at 6182 …"', (t) => {
  const f = factsOfLines([
    'Original lease dated August 20, 2025, for the term September 1, 2025 through August 31, 2026.',
    '1. EXTENSION OF TERM. The parties extend the lease for a new term of twelve (12) months, beginning September 1, 2026 and ending August 31, 2027.',
  ]);
  t.is(f.leaseStart?.value, '2026-09-01');
  t.is(f.leaseEnd?.value, '2027-08-31');
  t.is(
    factsOfLines(['1. PROPERTY. Landlord leases to Tenants the house, attached garage and yard at 6182 S. Quebec Way, Centennial, CO 80111, Arapahoe County.'])
      .propertyAddress?.value,
    '6182 S. Quebec Way, Centennial, CO 80111',
  );
});
