// Residential insurance clauses as leases word them: a party's sentence on its own after the insurance sentence
// ("Landlord must be listed as an interested party" — missed, its check passed on "Not required"), renters
// insurance called "mandatory", and "a renter's policy" / "a tenant's policy (HO-4)".
import test from 'ava';
import { factsOfLines } from '../../helpers/lease.ts';

const requirementsOf = (line: string) => factsOfLines([line]).requirements;

test('an interested party required in a sentence of its own, with no insurance word in it', (t) => {
  const r = requirementsOf(
    'Tenant is required to maintain renters insurance and to provide proof to Landlord. Landlord must be listed as an interested party.',
  );
  t.true(r.interestedParty?.required);
  t.true(r.renters?.required);
});

test('renters insurance that is "mandatory", and a renter\'s or tenant\'s (HO-4) policy', (t) => {
  const a = requirementsOf("Renter's insurance is mandatory. Minimum liability coverage: $100,000.");
  t.true(a.renters?.required);
  t.is(a.liability?.amount, 100000);
  t.true(requirementsOf("Tenant will maintain a renter's policy with Coverage E (personal liability) of at least $100,000.").renters?.required);
  t.true(requirementsOf("Lessee shall procure a tenant's policy (HO-4) with personal liability of $100,000.").renters?.required);
  // Personal liability insurance alone is a liability requirement, not renters insurance.
  t.is(requirementsOf('Resident must maintain personal liability insurance with limits of $100,000 per occurrence.').renters, undefined);
});

test('commercial clauses: "CGL" is general liability, a list item "Umbrella: $3,000,000", "primary to any insurance", and the tenant\'s own mention after a mover\'s', (t) => {
  const a = requirementsOf(
    'Tenant shall carry (i) CGL of not less than $2,000,000 each occurrence/$4,000,000 aggregate; (ii) automobile liability of $1,000,000 combined single limit.',
  );
  t.is(a.liability?.amount, 2000000);
  t.is(a.liability?.aggregate, 4000000);
  t.is(requirementsOf('Tenant shall maintain: Commercial General Liability: $1,000,000 per occurrence. Umbrella: $3,000,000.').umbrella?.amount, 3000000);
  t.true(
    requirementsOf("Tenant's insurance shall be endorsed to provide that it is primary to any insurance carried by Landlord.").primaryNonContributory?.required,
  );
  const m = requirementsOf(
    'Tenant shall require its movers to carry liability insurance of $1,000,000 and Tenant shall maintain liability insurance of $2,000,000 per occurrence.',
  );
  t.is(m.liability?.amount, 2000000);
  // A contractor's coverage alone is still not the tenant's.
  t.is(requirementsOf('Tenant shall require its movers to carry liability insurance of $1,000,000.').liability, undefined);
});

test('addresses compared as the policy writes them: "3rd" for "Third", "Rte"/"Bldg", "4-B"; another suffix is no pass', async (t) => {
  const { compare } = await import('../../../pipelines/lease/index.ts');
  const { insuranceFacts } = await import('../../helpers/lease.ts');
  const status = (leaseAddress: string, policyAddress: string) => {
    const f = factsOfLines([
      `This Lease is made between Oak LLC ("Landlord") and Jo Lee ("Tenant"). Landlord leases to Tenant the premises located at ${leaseAddress}.`,
    ]);
    return compare(f, insuranceFacts({ propertyAddress: { value: policyAddress, page: 1, text: policyAddress, from: 'premises' } }), {
      asOf: '2026-02-15',
    }).find((c) => c.field === 'Property Address')!.status;
  };
  t.is(status('1455 Third Street, Suite 210, San Francisco, California 94158', '1455 3rd St, Ste 210, San Francisco, CA 94158'), 'pass');
  t.is(status('2400 Route 9, Building C, Clifton Park, New York 12065', '2400 Rte 9 Bldg C, Clifton Park, NY 12065'), 'pass');
  t.is(status('12 Oak Street, Apt 4B, Springfield, IL 62704', '12 Oak St Unit 4-B, Springfield, IL 62704'), 'pass');
  t.is(status('4410 Ridgecrest Drive, Asheville, NC 28803', '4410 Ridgecrest Court, Asheville, NC 28803'), 'warning');
  t.is(status('4410 Ridgecrest Drive, Asheville, NC 28803', '4412 Ridgecrest Drive, Asheville, NC 28803'), 'fail');
});

test('a party named with what certificates add ("its successors and assigns", "ISAOA/ATIMA") or abbreviated is the same party; another name is not', async (t) => {
  const { sameParty } = await import('../../../pipelines/lease/text.ts');
  for (const other of [
    'Oak Street Properties LLC, its successors and assigns',
    'Oak Street Properties LLC ISAOA/ATIMA',
    'Oak St. Properties, L.L.C.',
    'Oak Street Properties LLC and its property manager',
  ])
    t.true(sameParty('Oak Street Properties LLC', other), other);
  t.true(sameParty('Greenleaf Apartments LP', 'Greenleaf Apts LP'));
  t.false(sameParty('Oak Street Properties LLC', 'Oak Street Partners LLC'));
  t.false(sameParty('Oak Street Properties LLC', 'Oak Street Property LLC'));
});
