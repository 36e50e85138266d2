import test from 'ava';
import {
  parseMoney,
  parseDate,
  dateTokens,
  parseUsAddress,
  formatUsAddress,
  splitPersonName,
  isOrganisation,
  normaliseText,
  formatDateShort,
} from '../../../pipelines/extraction/normalise.ts';

test('money', (t) => {
  t.is(parseMoney('$1,000,000'), 1_000_000);
  t.is(parseMoney('$1,184.50'), 1184.5);
  t.is(parseMoney('USD 250'), 250);
  t.is(parseMoney('$1M'), 1_000_000);
  t.is(parseMoney('$100;000'), 100_000); // OCR misread of a comma
  t.is(parseMoney('none'), undefined);
});

test('dates in the shapes declarations use', (t) => {
  t.is(parseDate('01/15/2025'), '2025-01-15');
  t.is(parseDate('03-01-25'), '2025-03-01');
  t.is(parseDate('January 5, 2025'), '2025-01-05');
  t.is(parseDate('Sept. 30 2024'), '2024-09-30');
  t.is(parseDate('5 March 2026'), '2026-03-05');
  // OCR of a scan may drop the space after the comma.
  t.is(parseDate('November 6,2025'), '2025-11-06');
  t.is(parseDate('Jan 1,000,000'), undefined);
  t.is(parseDate('2025-07-01'), '2025-07-01');
  t.is(parseDate('02/30/2025'), undefined);
  t.deepEqual(
    dateTokens('05-18-22 through 11-18-22').map((d) => d.iso),
    ['2022-05-18', '2022-11-18'],
  );
  t.is(formatDateShort('2025-01-05'), 'Jan 5, 2025');
});

test('addresses', (t) => {
  t.deepEqual(parseUsAddress('12 Oak Street, Springfield, IL 62701'), { street: '12 Oak Street', city: 'Springfield', state: 'IL', zip: '62701' });
  t.deepEqual(parseUsAddress('300 Pine St Apt 4B, Burlington, VT 05401-1234'), { street: '300 Pine St Apt 4B', city: 'Burlington', state: 'VT', zip: '05401' });
  t.is(formatUsAddress(parseUsAddress('88 Harbor View Rd Portland ME 04101')), '88 Harbor View Rd, Portland, ME, 04101'.replace(', 04101', ' 04101'));
});

test('names and organisations', (t) => {
  t.deepEqual(splitPersonName('John Q Smith'), { first_name: 'John', last_name: 'Smith' });
  t.deepEqual(splitPersonName('SMITH, JOHN A'), { first_name: 'JOHN', last_name: 'SMITH' });
  t.deepEqual(splitPersonName('David and Susan Park'), { first_name: 'David', last_name: 'Park' });
  t.true(isOrganisation('Keystone Bakery LLC'));
  t.true(isOrganisation('Blue Heron Cafe Inc'));
  t.false(isOrganisation('Maria Gonzalez'));
  t.is(normaliseText('  Acme  Mutual & Co., Inc. '), 'acme mutual and co inc');
});

test('a professional corporation or association ("…, P.C.", "…, P.A.") is an organisation; a surname with initials is not', (t) => {
  t.true(isOrganisation('High Plains Veterinary Clinic, P.C.'));
  t.true(isOrganisation('Harbor Eye Associates, P.A.'));
  t.true(isOrganisation('Ridgeview Family Dentistry, P. C.'));
  t.false(isOrganisation('Smith, P. A.'));
  t.false(isOrganisation('Maria Gonzalez'));
});
