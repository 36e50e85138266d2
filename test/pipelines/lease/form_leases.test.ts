// Residential and retail forms as their blanks and captions leave them: a state association's contract ("you, the
// resident(s) (list all people signing …): …"), a realtor form's agent for the owner and boxes before their letters,
// a roommates' summary, a lot rental's homeowner, a summary's own "Unit" row, and a tenant doing business as a name.
import test from 'ava';
import { factsOfLines, row } from '../../helpers/lease.ts';

test('an association contract: parties after the form\'s captions, and "(street address) in X (city), Texas, 77380 (zip code)"', (t) => {
  const f = factsOfLines([
    '1. PARTIES. This Lease Contract is between you, the resident(s) (list all people signing the Lease Contract): Marisol Ortega,',
    'Benjamin Ortega and us, the owner: Cedar Bluff Residential LP (name of apartment community or title holder). You have',
    'agreed to rent Apartment No. 2117 at 9800 Research Forest Drive (street address) in The Woodlands (city), Texas, 77380',
    '(zip code) for use as a private residence only.',
  ]);
  t.is(f.landlord?.value, 'Cedar Bluff Residential LP');
  t.is(f.tenant?.value, 'Marisol Ortega, Benjamin Ortega');
  t.is(f.propertyAddress?.value, '9800 Research Forest Drive, Apartment No. 2117, The Woodlands, Texas 77380');
});

test('a realtor form: the owner an agent acts for is the landlord, and a box before its option\'s letter ("[X] A. Lease:")', (t) => {
  const f = factsOfLines([
    'Seacliff Property Management, Inc., as agent for the owner, Sunset Terrace LLC ("Landlord") and Aiko Tanaka ("Tenant") agree as follows:',
    '2. TERM: The term begins on (date) 03/01/2026 ("Commencement Date"), (Check A or B): [X] A. Lease: and shall terminate on (date)',
    '02/28/2027 at 11:59 PM. [ ] B. Month-to-Month: and continues as a month-to-month tenancy.',
  ]);
  t.is(f.landlord?.value, 'Sunset Terrace LLC');
  t.is(f.tenant?.value, 'Aiko Tanaka');
  t.is(f.leaseStart?.value, '2026-03-01');
  t.is(f.leaseEnd?.value, '2027-02-28');
});

test('a roommates\' summary: "TENANTS (jointly and severally liable):", "LEASE PERIOD: … through …", renters insurance recommended but not required', (t) => {
  const f = factsOfLines([
    'LANDLORD: Campus Row Properties, LLC',
    'TENANTS (jointly and severally liable): Ethan Brooks; Sofia Alvarez; Kwame Mensah',
    'LEASE PERIOD: August 15, 2026 through July 31, 2027',
    'Landlord strongly recommends, but does not require, that each Tenant obtain renters insurance.',
  ]);
  t.is(f.tenant?.value, 'Ethan Brooks; Sofia Alvarez; Kwame Mensah');
  t.is(f.leaseStart?.value, '2026-08-15');
  t.is(f.leaseEnd?.value, '2027-07-31');
  t.false(f.requirements.renters?.required ?? true);
});

test('a summary\'s own "Unit:" row joins the address; a lot "whose address is"; a homeowner; a tenant "d/b/a" a trade name', (t) => {
  const f = factsOfLines([
    row('Landlord:', 'Riverside Lofts Owner, LLC', 170),
    row('Unit:', '#612', 170),
    row('Community Address:', '250 West Riverside Drive, Spokane, WA 99201', 170),
  ]);
  t.is(f.propertyAddress?.value, '250 West Riverside Drive, #612, Spokane, WA 99201');
  const lot = factsOfLines([
    'This Agreement is made between Pine Hollow Communities, Inc. ("Owner") and Gerald Whitfield and Ann Whitfield (the "Homeowner").',
    'The Owner rents to the Homeowner Lot 58 of the Community, whose address is 58 Hollow Creek Lane, Ocala, Florida 34482.',
  ]);
  t.is(lot.tenant?.value, 'Gerald Whitfield and Ann Whitfield');
  t.is(lot.propertyAddress?.value, '58 Hollow Creek Lane, Ocala, Florida 34482');
  // A party's "whose address is" is its own address, not the premises.
  const office = factsOfLines([
    'This is a lease between Gulf Breeze Rentals, LLC, whose address is 100 Office Park Drive, Suite 210, Tampa, Florida 33607 ("Landlord"), and Marcus Bell ("Tenant").',
    'Landlord leases to Tenant the real property located at 17 Palm Way, Unit 3, Clearwater, Florida 33755.',
  ]);
  t.is(office.propertyAddress?.value, '17 Palm Way, Unit 3, Clearwater, Florida 33755');
  const dba = factsOfLines([
    'THIS LEASE is made by and between WILLOW CREEK PLAZA ASSOCIATES, LLC ("Landlord"), and ROSA DELGADO d/b/a SWEET ROSA BAKERY ("Tenant").',
  ]);
  t.is(dba.tenant?.value, 'ROSA DELGADO d/b/a SWEET ROSA BAKERY');
});
