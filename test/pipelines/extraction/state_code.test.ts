// A state code a scan misread ("W1", "Wi", "lL") is mended where it is then a state, so the address keeps its city line.
import test from 'ava';
import { textPage, firstValues } from '../../helpers/pages.ts';
import { mendStateCode } from '../../../pipelines/extraction/normalise.ts';
import { findNamedInsured } from '../../../pipelines/extraction/names.ts';

test('mendStateCode: a digit or a small letter read for a state code letter', (t) => {
  t.is(mendStateCode('Madison, Wi 53703'), 'Madison, WI 53703');
  t.is(mendStateCode('Chicago, lL 60607'), 'Chicago, IL 60607');
  t.is(mendStateCode('Dayton, OH 45402'), 'Dayton, OH 45402');
  t.is(mendStateCode('Springfield, Zz 62701'), 'Springfield, Zz 62701');
});

test('a declarations insured whose city line a scan read "Madison, Wi 53703" keeps its address', (t) => {
  const p = textPage(
    [
      [49, 95, 'COMMERCIAL GENERAL LIABILITY DECLARATIONS'],
      [49, 165, 'First Named Insured: Maple & Vine Florists LLC'],
      [164, 179, '2150 Commerce Dr'],
      [164, 192, 'Madison, Wi 53703'],
    ],
    1,
    { source: 'ocr' },
  );
  const v = firstValues((emit) => findNamedInsured([p], emit));
  t.is(v['/policyholder/address'], '2150 Commerce Dr, Madison, WI 53703');
});
