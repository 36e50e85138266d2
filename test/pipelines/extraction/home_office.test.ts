// A home office's city under a carrier's letterhead ("Hartford, Connecticut") names a brand but is a place: when a
// scan lost the legal name above it, the carrier is not read from it.
import test from 'ava';
import { textPage, firstValues } from '../../helpers/pages.ts';
import { findCarrier } from '../../../pipelines/extraction/names.ts';
import { isCityState } from '../../../pipelines/extraction/normalise.ts';

test('isCityState: a city with its state named or coded, and what is not one', (t) => {
  t.true(isCityState('Hartford, Connecticut'));
  t.true(isCityState('Columbus, OH 43215'));
  t.true(isCityState('New York, New York'));
  t.false(isCityState('The Hartford'));
  t.false(isCityState('Hartford Fire Insurance Company'));
  t.false(isCityState('Smith, John'));
  t.false(isCityState('Acme, XY'));
});

test('the brand in a page header is the carrier, but not the city line of a home office', (t) => {
  const page = (top: string) =>
    textPage(
      [
        [50, 40, top],
        [50, 80, 'COMMERCIAL GENERAL LIABILITY DECLARATIONS'],
        [50, 110, 'Named Insured: Blue Fin Cafe Inc'],
      ],
      1,
      { source: 'ocr' },
    );
  t.false('/policy/provider' in firstValues((emit) => findCarrier([page('Hartford, Connecticut')], emit)));
  t.is(firstValues((emit) => findCarrier([page('The Hartford')], emit))['/policy/provider'], 'The Hartford');
});
