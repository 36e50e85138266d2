// Parties, premises and term as formal leases write them, in wordings the other tests do not use: a description
// between the name and "hereinafter called", "jointly called", a defined term in parentheses without "called", a
// unit named before the street in the same sentence, a retail space number, and a term that ends "at midnight".
import test from 'ava';
import { factsOfLines, row } from '../../helpers/lease.ts';
import { addressParts } from '../../../pipelines/lease/text.ts';

const facts = factsOfLines;

test('"X, a Texas limited partnership, hereinafter called "Owner"": the name, not its description; "jointly called" names the tenants', (t) => {
  const f = facts([
    'THIS RENTAL AGREEMENT is entered into by and between Maple Grove Apartments, L.P., a Texas limited partnership, hereinafter',
    'called "Owner," and Daniel Kim and Priya Shah, hereinafter jointly called "Residents."',
  ]);
  t.is(f.landlord?.value, 'Maple Grove Apartments, L.P.');
  t.is(f.tenant?.value, 'Daniel Kim and Priya Shah');
});

test('a defined term in parentheses after "hereinafter" alone: (hereinafter "Landlord")', (t) => {
  const f = facts([
    'AGREEMENT made this 15th day of January, 2026, between JOHN P. HALVORSEN (hereinafter "Landlord") and ELLEN M. CARVER (hereinafter "Tenant").',
  ]);
  t.is(f.landlord?.value, 'JOHN P. HALVORSEN');
  t.is(f.tenant?.value, 'ELLEN M. CARVER');
});

test("a unit named before the street in the same sentence is the premises' unit; a retail space number is a unit", (t) => {
  const f = facts([
    '1. APARTMENT. Owner rents to Residents Unit No. 407 of the apartment community known as Maple Grove Apartments, located at',
    '5120 North Lamar Boulevard, Austin, Texas 78751 (the "Apartment").',
  ]);
  t.is(f.propertyAddress?.value, '5120 North Lamar Boulevard, Unit No. 407, Austin, Texas 78751');
  // A unit of another sentence is not the premises' unit.
  const g = facts(['Notices go to Landlord at Suite 300 of its office. Landlord leases to Tenant the house located at 12 Elm Street, Dover, Delaware 19901.']);
  t.is(g.propertyAddress?.value, '12 Elm Street, Dover, Delaware 19901');
  const h = facts([row('PREMISES:', 'Shop Space No. 12, Sunbelt Plaza, 2450 East Camelback Road, Phoenix, Arizona 85016', 170)]);
  t.is(h.propertyAddress?.value, '2450 East Camelback Road, Shop Space No. 12, Phoenix, Arizona 85016');
});

test('"Unit No. 407" and "Unit 407" are the same unit when addresses are compared', (t) => {
  t.is(addressParts('5120 North Lamar Boulevard, Unit No. 407, Austin, Texas 78751').unit, '407');
  t.is(addressParts('5120 North Lamar Boulevard, Unit 407, Austin, TX 78751').unit, '407');
  t.is(addressParts('12 Oak St Apt No 4B, Springfield, IL 62701').unit, '4b');
});

test('a term that ends "at midnight on" a date written "the 28th day of February, 2027"', (t) => {
  const f = facts([
    '2. TERM. The term of this Agreement shall commence on the 1st day of March, 2026 and shall terminate at midnight on the 28th day of',
    'February, 2027.',
  ]);
  t.is(f.leaseStart?.value, '2026-03-01');
  t.is(f.leaseEnd?.value, '2027-02-28');
});

test('a form\'s parties: a list letter after a colon is no initial; "X as Landlord and Y as Tenant" without commas; "you, the resident(s): … and us, the owner: …"', (t) => {
  const a = facts(['1. PARTIES AND PROPERTY: A. Sierra Vista Rentals, Inc. ("Landlord") and Hannah Brooks, Jacob Brooks ("Tenant") agree as follows:']);
  t.is(a.landlord?.value, 'Sierra Vista Rentals, Inc.');
  t.is(a.tenant?.value, 'Hannah Brooks, Jacob Brooks');
  const b = facts(['This Lease is between Coastal Keys Realty, LLC as Landlord and Tyler Grant and Megan Grant as Tenant.']);
  t.is(b.landlord?.value, 'Coastal Keys Realty, LLC');
  t.is(b.tenant?.value, 'Tyler Grant and Megan Grant');
  // "as" followed by more words is no role: "such contractor as Landlord may approve".
  t.is(facts(['Tenant shall use such contractor as Landlord may approve in writing.']).landlord, null);
  const c = facts([
    '1. PARTIES. This Lease Contract is between you, the resident(s): Samuel Ortiz and Lily Chen, and us, the owner: Brookhaven Flats Owner, LLC.',
    'You have agreed to rent Apartment No. 1108 at 300 West Kinzie Street, Chicago, Illinois 60654 for use as a private residence only.',
  ]);
  t.is(c.tenant?.value, 'Samuel Ortiz and Lily Chen');
  t.is(c.landlord?.value, 'Brookhaven Flats Owner, LLC');
  t.is(c.propertyAddress?.value, '300 West Kinzie Street, Apartment No. 1108, Chicago, Illinois 60654');
  // A cover's "LEASE Between X as Landlord": "Between" joins, it does not start the name.
  t.is(facts(['LEASE Between 2430 N. Halsted, LLC as Landlord and Acme Labs, Inc. as Tenant']).landlord?.value, '2430 N. Halsted, LLC');
});

test('a summary\'s list markers are not part of its labels: "(c) Building:", "(e) Commencement Date:"', (t) => {
  const f = facts([
    row('(c) Building:', '600 Grant Street, Pittsburgh, Pennsylvania 15219'),
    row('(d) Premises:', 'Suite 1400 on the fourteenth (14th) floor of the Building'),
    row('(e) Commencement Date:', 'September 1, 2026'),
    row('(f) Expiration Date:', 'August 31, 2033'),
  ]);
  t.is(f.propertyAddress?.value, '600 Grant Street, Suite 1400, Pittsburgh, Pennsylvania 15219');
  t.is(f.leaseStart?.value, '2026-09-01');
  t.is(f.leaseEnd?.value, '2033-08-31');
});

test('a form\'s term: "(date)" captions, and the option ticked between "[ ] Month-to-Month" and "[X] Lease … terminate on"', (t) => {
  const lines = (month: string, lease: string) => [
    '2. TERM: The term begins on (date) June 1, 2026 ("Commencement Date"), (Check A or B):',
    `A. ${month} Month-to-Month: and continues as a month-to-month tenancy.`,
    `B. ${lease} Lease: and shall terminate on (date) May 31, 2027 at 11:59 [ ] AM [X] PM.`,
  ];
  const lease = facts(lines('[ ]', '[X]'));
  t.is(lease.leaseStart?.value, '2026-06-01');
  t.is(lease.leaseEnd?.value, '2027-05-31');
  t.is(lease.openTerm ?? null, null);
  const monthly = facts(lines('[X]', '[ ]'));
  t.is(monthly.leaseStart?.value, '2026-06-01');
  t.is(monthly.leaseEnd, null);
  t.regex(monthly.openTerm?.value ?? '', /month-to-month/i);
});

test('commercial leases as filings write them: a name in capitals holding short words ("ARE-SAN DIEGO NO. 12, LLC"), and the standard industrial lease\'s "City of …, County of …, State of …"', (t) => {
  const f = facts([
    'THIS LEASE is made as of March 3, 2026, by and between ARE-SAN DIEGO NO. 12, LLC, a Delaware limited liability company ("Landlord"), and',
    'HELIX THERAPEUTICS, INC., a Delaware corporation ("Tenant").',
  ]);
  t.is(f.landlord?.value, 'ARE-SAN DIEGO NO. 12, LLC');
  t.is(f.tenant?.value, 'HELIX THERAPEUTICS, INC.');
  // The same short words in lower case are a sentence's: no name.
  t.is(facts(['Resident shall not allow any utility to be disconnected ("Tenant").']).tenant, null);
  const g = facts([
    '1.2 Premises. That certain real property commonly known by the street address of 8800 Industrial Parkway, Unit 4, located in the City of',
    'Reno, County of Washoe, State of Nevada, with zip code 89511 ("Premises").',
  ]);
  t.is(g.propertyAddress?.value, '8800 Industrial Parkway, Unit 4, Reno, Nevada 89511');
});

test('more ways leases name their parties and dates: the role before the name, several defined terms in one parenthesis, ISO dates', (t) => {
  const a = facts(['The Landlord, Harbor View LLC, and the Tenant, Maya Singh, agree as follows.']);
  t.is(a.landlord?.value, 'Harbor View LLC');
  t.is(a.tenant?.value, 'Maya Singh');
  const b = facts(['THIS AGREEMENT is between Elm Properties, Inc. ("we," "us," or "Landlord") and Chris Young ("you" or "Tenant").']);
  t.is(b.landlord?.value, 'Elm Properties, Inc.');
  t.is(b.tenant?.value, 'Chris Young');
  const c = facts(['TERM. The lease term begins on 2026-03-01 and ends on 2027-02-28.']);
  t.is(c.leaseStart?.value, '2026-03-01');
  t.is(c.leaseEnd?.value, '2027-02-28');
});

test('premises "known and numbered as", "the leased premises is", "designated as Suite 150 in the building at", a floor after the street', (t) => {
  const of = (line: string) => facts([line]).propertyAddress?.value;
  t.is(
    of('The Landlord hereby leases to the Tenant the premises known and numbered as 48 Elm Street, Second Floor, Worcester, MA 01609.'),
    '48 Elm Street, Second Floor, Worcester, MA 01609',
  );
  t.is(of('The leased premises is 2400 Route 9, Building C, Clifton Park, New York 12065.'), '2400 Route 9, Building C, Clifton Park, New York 12065');
  t.is(
    of('Landlord leases the space designated as Suite 150 in the building at 333 Elm Plaza, Dallas, TX 75201.'),
    '333 Elm Plaza, Suite 150, Dallas, TX 75201',
  );
});
