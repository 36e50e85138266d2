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
