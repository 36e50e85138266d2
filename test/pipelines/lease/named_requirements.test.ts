// Requirements whose content lies elsewhere in the lease: limits "set forth in Section 1.9" (followed to that item,
// and never a pass when they cannot be found) and a party the clause names by name ("listing Keystone Realty
// Management LLC as an interested party"), which only that party on the policy meets.
import test from 'ava';
import { compare } from '../../../pipelines/lease/compare.ts';
import { leaseFacts } from '../../../pipelines/lease/lease_facts.ts';
import { factsOfLines, insuranceFacts, linesPage, row } from '../../helpers/lease.ts';

const cited = (value: string) => ({ value, page: 1, text: value });
const gl = (each: number, aggregate: number) =>
  insuranceFacts({
    kind: 'certificate',
    liability: { value: each, page: 1, text: `EACH OCCURRENCE ${each}`, label: 'EACH OCCURRENCE' },
    liabilityAggregate: { value: aggregate, page: 1, text: `GENERAL AGGREGATE ${aggregate}`, label: 'GENERAL AGGREGATE' },
  });
const status = (lines: string[], ins: ReturnType<typeof insuranceFacts>, field: string) =>
  compare(factsOfLines(lines), ins, { asOf: '2026-03-01' }).find((c) => c.field === field)!;

test('limits "not less than those set forth in Section 1.9" are read from item 1.9 of the summary', (t) => {
  const lines = [
    '1.2 Landlord: Meridian Tower Partners, L.P.',
    '1.3 Tenant: Brightline Analytics Corp.',
    '1.8 Umbrella Liability Insurance: $5,000,000',
    "1.9 Tenant's Liability Insurance: $1,000,000 each occurrence / $3,000,000 general aggregate",
    '12.1 Tenant shall maintain commercial general liability insurance with limits not less than those set forth in Section 1.9.',
  ];
  const r = factsOfLines(lines).requirements.liability!;
  t.is(r.amount, 1_000_000);
  t.is(r.aggregate, 3_000_000);
  t.is(r.amountSource?.how, 'reference');
  t.is(status(lines, gl(1_000_000, 2_000_000), 'General Liability').status, 'fail');
});

test('limits set by a reference that cannot be followed are uncertain: a warning, never a pass', (t) => {
  const lines = [
    'Landlord: Meridian Tower Partners, L.P.',
    'Tenant: Brightline Analytics Corp.',
    'Tenant shall maintain commercial general liability insurance with limits not less than those set forth in Section 1.9.',
  ];
  const r = factsOfLines(lines).requirements.liability!;
  t.is(r.amount, null);
  t.regex(r.uncertain ?? '', /Section 1\.9/);
  const s = status(lines, gl(1_000_000, 2_000_000), 'General Liability');
  t.is(s.status, 'warning');
});

test('a party the clause names by name is met by that party only; "X and its manager" is the landlord group as before', (t) => {
  const lines = [
    'This lease is between Thomas R. Beaumont (Owner), by and through his agent, Keystone Realty Management LLC (Agent), and Chloe Nguyen (Tenant).',
    'Tenant shall keep in force a renters insurance policy listing Keystone Realty Management LLC as an interested party.',
  ];
  t.is(factsOfLines(lines).requirements.interestedParty?.party, 'Keystone Realty Management LLC');
  t.is(
    factsOfLines(['Tenant shall add Riverside Flats LP to the policy as an additional insured.']).requirements.additionalInsured?.party,
    'Riverside Flats LP',
  );
  const party = (name: string) => insuranceFacts({ parties: [{ ...cited(name), role: 'interested_party' }] });
  const owner = status(lines, party('Thomas R. Beaumont'), 'Interested Party');
  t.is(owner.status, 'fail');
  t.regex(owner.gap ?? '', /not Keystone Realty Management LLC/);
  t.is(status(lines, party('Keystone Realty Management, LLC'), 'Interested Party').status, 'pass');
  // Named with its people, or by its role: no single party, the landlord's names are matched.
  const group = [
    'Landlord: Brickyard Commons LP',
    'Tenant: Northwind Analytics, Inc.',
    'All liability policies shall name Brickyard Commons LP and its manager as additional insureds.',
  ];
  t.is(factsOfLines(group).requirements.additionalInsured?.party, undefined);
  t.is(factsOfLines(['Subtenant shall name Sublessor as an additional insured on the policy.']).requirements.additionalInsured?.party, undefined);
});

test('"in the amounts set forth in the Lease Summary": each coverage from its own summary row, an umbrella row not taken for general liability', (t) => {
  const summary = linesPage(1, [
    row('Landlord:', 'Copperline Business Park LLC'),
    row('Tenant:', 'Summit Ridge Dental, PLLC'),
    row('Umbrella Liability:', '$5,000,000'),
    row('Commercial General Liability:', '$2,000,000 per occurrence / $4,000,000 aggregate'),
  ]);
  const clause = linesPage(2, [
    '10. INSURANCE. Tenant shall carry commercial general liability insurance and umbrella liability insurance in the amounts',
    'set forth in the Lease Summary, naming Landlord as additional insured.',
  ]);
  const r = leaseFacts([summary, clause]).requirements;
  t.is(r.liability?.amount, 2_000_000);
  t.is(r.liability?.aggregate, 4_000_000);
  t.is(r.liability?.amountSource?.how, 'reference');
  t.is(r.umbrella?.amount, 5_000_000);
});

test("a certificate held by the landlord's manager is a warning, not a pass; held by the landlord, a pass", (t) => {
  const lines = [
    'Landlord: Pleasant Street Realty Trust',
    "Landlord's property manager is Hampshire Property Group, LLC.",
    'Tenant shall deliver a certificate of insurance with Landlord as the certificate holder.',
  ];
  const holder = (name: string) =>
    compare(
      factsOfLines(lines),
      insuranceFacts({ kind: 'certificate', hasCertificateHolderSection: true, parties: [{ ...cited(name), role: 'certificate_holder' }] }),
      {
        asOf: '2026-05-04',
      },
    ).find((c) => c.field === 'Certificate Holder')!;
  t.is(factsOfLines(lines).manager?.value, 'Hampshire Property Group, LLC');
  t.is(holder('Hampshire Property Group, LLC').status, 'warning');
  t.is(holder('Pleasant Street Realty Trust').status, 'pass');
});
