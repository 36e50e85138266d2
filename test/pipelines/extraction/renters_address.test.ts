// The insured premises of a renters declarations printed under an "Insured address" caption (a modern insurer's
// one-pager): the address the lease checker compares with the leased unit.
import test from 'ava';
import { textPage as page, firstValues } from '../../helpers/pages.ts';
import { propertyFields } from '../../../pipelines/extraction/declarations.ts';

test('"Insured address" over its value is the insured premises', (t) => {
  const p = page([
    [40, 110, 'Policyholder'],
    [40, 122, 'Jordan Lee'],
    [40, 140, 'Insured address'],
    [40, 152, '12 Oak Street, Apt 4B, Springfield, IL 62704'],
  ]);
  t.is(firstValues((e) => propertyFields([p], [], e, true))['/property/address'], '12 Oak Street, Apt 4B, Springfield, IL 62704');
});

test('a "Term:" cell after another cell on its line gives the policy period, its dash lost or not', async (t) => {
  const { period } = await import('../../../pipelines/extraction/declarations.ts');
  for (const [before, term] of [
    ['Premises: 12 Oak Street, Apt 4B, Springfield, IL 62704', 'Term: 02/01/2026  02/01/2027'],
    ['Insured: Jordan Lee', 'Term: 02/01/2026 - 02/01/2027'],
  ]) {
    const r = firstValues((e) =>
      period(
        [
          page([
            [40, 100, before],
            [400, 100, term],
          ]),
        ],
        e,
      ),
    );
    t.is(r['/policy/effective_date'], '2026-02-01', term);
    t.is(r['/policy/expiration_date'], '2027-02-01', term);
  }
});
