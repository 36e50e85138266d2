// What a scan's OCR does to a lease's words, read through: punctuation around a defined term ("Diaz: (hereinafter
// referred to as. "Lessee™)"), "situated" without "at", a semicolon before the city, a state's name off by a
// letter, a space inside a numeric date, and a form's checkboxes read as nothing or as a bare X.
import test from 'ava';
import { factsOfLines } from '../../helpers/lease.ts';
import { ocrTermText } from '../../../pipelines/lease/lease_term.ts';

const facts = factsOfLines;

test("a defined term in parentheses with OCR's punctuation around it", (t) => {
  const f = facts([
    'THISLEASE AGREEMENT is made and entered into on August 30, 2026, by and between Redbud Property',
    'Holdings, Inc. (hereinafter referred to as. "Lessor™) and Carmen Diaz: (hereinafter referred to as "Lessee").',
  ]);
  t.is(f.landlord?.value, 'Redbud Property Holdings, Inc.');
  t.is(f.tenant?.value, 'Carmen Diaz');
});

test('premises "situated" without "at"; the city after a semicolon; a state OCR misspelled by one letter', (t) => {
  t.is(
    facts(['WITNESSETH: Lessor leases to Lessee the dwelling situated 415 Magnolia Avenue, Lexington, Kestucky 40505, upon the following terms.'])
      .propertyAddress?.value,
    '415 Magnolia Avenue, Lexington, Kestucky 40505',
  );
  t.is(
    facts(['B. Landlord rents to Tenant the real property described as: 742 Evergreen Terrace, Unit 3; Sacramento, CA 95814 ("Premises").']).propertyAddress
      ?.value,
    '742 Evergreen Terrace, Unit 3, Sacramento, CA 95814',
  );
  // A word two letters off a state's name is no state: the city and ZIP are not guessed.
  t.is(facts(['The premises are located at 12 Elm Street, Dover, Delwxre 19901.']).propertyAddress?.value, '12 Elm Street');
});

test('a numeric date with a space OCR put in it, and checkboxes read as nothing or a bare X', (t) => {
  t.is(ocrTermText('from 06/01/2026 through 05/3 1/2027'), 'from 06/01/2026 through 05/31/2027');
  const f = facts([
    '2. TERM: The term begins on (date) June 1, 2026 ("Commencement Date"), (Check A or B):',
    'A.  Month-to-Month: and continues as a month-to-month tenancy.',
    'B. X Lease: and shall terminate on (date) May 31, 2027 at 11:59  AM X PM.',
  ]);
  t.is(f.leaseStart?.value, '2026-06-01');
  t.is(f.leaseEnd?.value, '2027-05-31');
  t.is(f.openTerm, null);
  // Without any X the options stay as written: no box is put back.
  t.is(ocrTermText('A. Month-to-Month: and continues. B. Lease: and shall terminate'), 'A. Month-to-Month: and continues. B. Lease: and shall terminate');
});

test('an insured that is only part of the tenant\'s name (a photo\'s "LEE" for "LEE, JORDAN") is a warning, not a fail', async (t) => {
  const { compare } = await import('../../../pipelines/lease/index.ts');
  const { insuranceFacts } = await import('../../helpers/lease.ts');
  const lease = facts([
    'This Lease is made between Oak Street Properties LLC ("Landlord") and Jordan Lee ("Tenant").',
    'Tenant shall maintain renters insurance with personal liability of at least $100,000.',
  ]);
  const renters = (insured: string) =>
    compare(
      lease,
      insuranceFacts({
        insured: { value: insured, page: 1, text: insured },
        liability: { value: 100000, page: 1, text: '$100,000', label: 'Personal Liability' },
      }),
      {
        asOf: '2026-02-15',
      },
    ).find((c) => c.field === 'Renters Insurance Required')!;
  t.is(renters('LEE').status, 'warning');
  t.regex(renters('LEE').gap ?? '', /matches only part of the tenant's name/);
  t.is(renters('Jordan Lee').status, 'pass');
  t.is(renters('Casey Morgan').status, 'fail');
});
