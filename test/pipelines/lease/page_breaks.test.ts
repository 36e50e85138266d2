// A requirement whose sentence a page break cuts, with the limit before the break and the coverage's words after
// it (or its words cut in two, with a folio between), is read as one sentence: the limit is never lost, so a policy
// under it never passes (a generated residential lease, seed 514, gave that false pass).
import test from 'ava';
import { linesPage } from '../../helpers/lease.ts';
import { leaseFacts } from '../../../pipelines/lease/lease_facts.ts';

const cut = (folio: string[]) =>
  leaseFacts([
    linesPage(1, ["16. INSURANCE. During the term, Resident shall keep renter's insurance in effect that provides at least $300,000 of personal", ...folio]),
    linesPage(2, ['liability coverage.', '17. GOVERNING LAW. This Lease is governed by the laws of the state of the Premises.']),
  ]);

test('the limit before a page break belongs to the coverage named after it', (t) => {
  for (const folio of [[], ['Page 1 of 2'], ['- 1 -']]) {
    const gl = cut(folio).requirements.liability;
    t.is(gl?.amount, 300000, folio.join(''));
    t.is(gl?.page, 2);
    t.deepEqual(gl?.amountSource && { page: gl.amountSource.page, how: gl.amountSource.how }, { page: 1, how: 'continued' });
  }
});
