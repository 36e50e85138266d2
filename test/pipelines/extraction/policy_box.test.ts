// A renters policy's box captioned "Number", "Starts", "Ends": the policy number and period under those captions,
// and "Number" is no policy number's caption on a page without such a box.
import test from 'ava';
import { textPage, firstValues } from '../../helpers/pages.ts';
import { policyNumber, period } from '../../../pipelines/extraction/declarations.ts';

test('a policy box: "Number", "Starts" and "Ends" with their values beside them', (t) => {
  const p = textPage([
    [50, 40, 'RENTERS POLICY DECLARATIONS'],
    [50, 80, 'YOUR POLICY'],
    [50, 94, 'Number:'],
    [160, 94, 'HR4-7731902'],
    [50, 106, 'Starts:'],
    [160, 106, '03/15/2025'],
    [50, 118, 'Ends:'],
    [160, 118, '03/15/2026'],
  ]);
  const v = firstValues((emit) => {
    policyNumber([p], emit);
    period([p], emit);
  });
  t.is(v['/policy/policy_number'], 'HR4-7731902');
  t.is(v['/policy/effective_date'], '2025-03-15');
  t.is(v['/policy/expiration_date'], '2026-03-15');
});

test('"Number" alone is no policy number caption', (t) => {
  const p = textPage([
    [50, 40, 'RENTERS POLICY DECLARATIONS'],
    [50, 94, 'Number:'],
    [160, 94, 'HR4-7731902'],
  ]);
  t.false('/policy/policy_number' in firstValues((emit) => policyNumber([p], emit)));
});
