// What an insurer's letter and a party's one-line entry say, read as fields: the insured, policy number and
// period stated in sentences; a party's name with its address on the same line.
import test from 'ava';
import { textPage as page, collect, firstValues } from '../../helpers/pages.ts';
import { policyNumber, period } from '../../../pipelines/extraction/declarations.ts';
import { parties as partyFields } from '../../../pipelines/extraction/parties.ts';
import { findNamedInsured } from '../../../pipelines/extraction/names.ts';

test('an insurer’s letter: the policy number and the period stated in sentences', (t) => {
  const p = page([
    [40, 150, 'This letter confirms that Jordan Lee is insured under renters policy HIC-R-4471902 issued by Harborline'],
    [40, 162, 'Insurance Company for the residence at 12 Oak Street, Apt 4B. The policy is in effect'],
    [40, 174, 'from February 1, 2026 to February 1, 2027 and includes personal liability coverage of $100,000.'],
  ]);
  const r = firstValues((e) => (policyNumber([p], e), period([p], e)));
  t.is(r['/policy/policy_number'], 'HIC-R-4471902');
  t.is(r['/policy/effective_date'], '2026-02-01');
  t.is(r['/policy/expiration_date'], '2027-02-01');
  const who = firstValues((e) => findNamedInsured([p], e));
  t.is(who['/policyholder/first_name'], 'Jordan');
  t.is(who['/policyholder/last_name'], 'Lee');
  // A policy form's number or a date is not a policy number.
  const q = firstValues((e) => policyNumber([page([[40, 100, 'This policy HO 00 04 05 11 is amended by the endorsement dated 2026-02-01.']])], e));
  t.false('/policy/policy_number' in q);
});

test('interested parties: a name with its address on the same line is the name, and the address is its address', (t) => {
  const pages = [
    page([
      [40, 300, 'Interested Party'],
      [40, 314, 'Oak Street Properties LLC, 100 Main Street, Springfield, IL 62701'],
      [40, 400, 'Mortgagee'],
      [40, 414, 'Wells Fargo Bank, N.A., ISAOA/ATIMA'],
    ]),
  ];
  const r = collect((e) => partyFields(pages, e));
  const names = r
    .filter((c) => c.pointer.endsWith('/name'))
    .map((c) => `${c.value} (${r.find((x) => x.pointer === c.pointer.replace(/name$/, 'role'))?.value})`);
  t.deepEqual(names, ['Wells Fargo Bank, N.A., ISAOA/ATIMA (mortgagee)', 'Oak Street Properties LLC (interested_party)']);
  t.is(r.find((c) => c.pointer === '/interested_parties/1/address')?.value, '100 Main Street, Springfield, IL 62701');
});
