// Residential and retail forms as their blanks and captions leave them: a state association's contract ("you, the
// resident(s) (list all people signing …): …"), a realtor form's agent for the owner and boxes before their letters,
// a roommates' summary, a lot rental's homeowner, a summary's own "Unit" row, and a tenant doing business as a name.
import test from 'ava';
import { factsOfLines, linesPage, readDocument, row } from '../../helpers/lease.ts';

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

test("a landlord stated with its address or its owners' marriage before the defined term; a company whose name starts with a number", async (t) => {
  const ny = factsOfLines([
    'AGREEMENT OF LEASE made as of March 1, 2026 between 410 EAST 84TH STREET LLC, having an office at 200 Park Avenue, New York, New York 10166 ("Owner") and JULIA MARKS ("Tenant").',
    'Owner leases to Tenant Apartment 5C in the building known as 410 East 84th Street, New York, New York 10028.',
  ]);
  t.is(ny.landlord?.value, '410 EAST 84TH STREET LLC');
  t.is(ny.propertyAddress?.value, '410 East 84th Street, Apartment 5C, New York, New York 10028');
  const couple = factsOfLines([
    'This Rental Agreement is made between John Smith and Mary Smith, husband and wife (together, the "Lessor"), and Kevin O\'Brien (the "Lessee").',
  ]);
  t.is(couple.landlord?.value, 'John Smith and Mary Smith');
  t.is(couple.tenant?.value, "Kevin O'Brien");
  const office = factsOfLines([
    'This is a lease between Gulf Breeze Rentals, LLC, whose address is 100 Office Park Drive, Tampa, Florida 33607 ("Landlord"), and Marcus Bell ("Tenant").',
  ]);
  t.is(office.landlord?.value, 'Gulf Breeze Rentals, LLC');
  // The policy's interested party is that company, not an address line.
  const { insuranceStage } = await import('../../../pipelines/lease/index.ts');
  const ins = insuranceStage(
    readDocument([
      linesPage(1, [
        'RENTERS POLICY DECLARATIONS',
        'Named Insured: Julia Marks',
        'Policy Period: 02/20/2026 to 02/20/2027',
        'Interested Party: 410 East 84th Street LLC',
        '200 Park Avenue, New York, NY 10166',
      ]),
    ]),
  );
  t.deepEqual(
    ins.facts.parties.map((p) => [p.role, p.value]),
    [['interested_party', '410 East 84th Street LLC']],
  );
});

test('a named highway is a street ("3401 Pacific Coast Highway"), a numbered one is not ("1325 Hwy 42 S."), and a retail "Space 14" is the unit either way', async (t) => {
  const f = factsOfLines([
    'The premises consist of approximately 1,850 square feet designated as Space No. 14 in Harbor Market Center, 3401 Pacific Coast Highway, Torrance, California 90505.',
  ]);
  t.is(f.propertyAddress?.value, '3401 Pacific Coast Highway, Space No. 14, Torrance, California 90505');
  t.is(
    factsOfLines(['The Premises are located at 1325 Hwy 42 S., Building B, McDonough, Georgia 30253.']).propertyAddress?.value,
    '1325 Hwy 42 S., Building B, McDonough, Georgia 30253',
  );
  const { addressParts } = await import('../../../pipelines/lease/index.ts');
  t.is(addressParts('3401 Pacific Coast Hwy, Space 14, Torrance, CA 90505').unit, '14');
  t.is(addressParts('3401 Pacific Coast Highway, Space No. 14, Torrance, California 90505').unit, '14');
  t.is(addressParts('12 Space Center Blvd, Houston, TX 77058').unit, null);
});
