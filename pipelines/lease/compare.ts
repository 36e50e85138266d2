// The 15 coverage checks (SPEC §2.8), each a pure function of the lease's and the policy's facts. The
// decision rules are the product's semantics; README.md documents them in words.
import type {
  LeaseFacts,
  InsuranceFacts,
  ComparisonItem,
  ComparisonField,
  LeaseRequirement,
  CitedLimit,
  CheckStatus,
  PartyMention,
  RequirementKind,
} from './schema.ts';
import { money, sameParty, insuredCoversTenant, sharesAName, addressParts } from './text.ts';
import { NOT_REQUIRED, requireEvidence, settledAbsence, settledRequirement, type CheckContext } from './evidence.ts';

import { item, type Check } from './check_item.ts';
import { policyPeriod, policyStatus } from './compare_dates.ts';

export type { CheckContext } from './evidence.ts';

const required = (r: LeaseRequirement | undefined): r is LeaseRequirement => !!r && r.required;
const reqOf = (r: LeaseRequirement, text: string) => ({ text, page: r.page, clause: r.clause });
const notRequired = (
  field: ComparisonField,
  r: LeaseRequirement | undefined,
  cov: { text: string; page: number | null; evidence?: string } = { text: 'Not checked', page: null },
) => item(field, r ? { text: NOT_REQUIRED, page: r.page, clause: r.clause } : { text: NOT_REQUIRED, page: null }, cov, 'pass', null);
const limitCov = (l: CitedLimit | null, fallback: string) =>
  l
    ? { text: l.value !== null ? `${money(l.value)} (${l.label})` : l.statutory ? 'Statutory' : l.label, page: l.page, evidence: l.text }
    : { text: fallback, page: null };

/** The landlord and the manager acting for it: either counts as "the landlord" on the policy. */
function landlordNames(lease: LeaseFacts): string[] {
  return [lease.landlord?.value, lease.manager?.value].filter((x): x is string => !!x);
}
const matchesLandlord = (lease: LeaseFacts, name: string) => landlordNames(lease).some((l) => sameParty(l, name));
const landlordLabel = (lease: LeaseFacts) => lease.landlord?.value ?? lease.manager?.value ?? 'the landlord';
/** A party on the policy as the coverage side of a check: its name and role. */
const partyCov = (p: PartyMention) => ({ text: `${p.value} (${p.role.replace(/_/g, ' ')})`, page: p.page, evidence: p.text });
/** A party on the policy (`party`, named in the gap as `what`) that cannot be matched, the lease's landlord unread: a warning. */
const landlordUnread = (
  field: ComparisonField,
  req: ReturnType<typeof reqOf>,
  cov: { text: string; page: number | null; evidence?: string },
  party: string,
  what = party,
) =>
  item(
    field,
    req,
    cov,
    'warning',
    `The landlord could not be read from the lease, so ${what} could not be matched to it.`,
    `Check by hand that ${party} is the landlord or its manager.`,
  );

/** A limit check: ≥ required → pass; below → fail; absent → `absent` (fail, or warning for property damage). */
function limitCheck(field: ComparisonField, kind: RequirementKind, pick: (i: InsuranceFacts) => CitedLimit | null, absent: CheckStatus, label: string): Check {
  return (lease, ins, ctx) => {
    const r = lease.requirements[kind];
    const l = pick(ins);
    if (!required(r)) return notRequired(field, r, limitCov(l, 'Not shown'));
    const need = r.amount;
    const reqText = kind === 'workersComp' && (r.statutory || need === null) ? 'Statutory limits' : need !== null ? `${money(need)} minimum` : 'Required';
    if (!l) {
      return item(
        field,
        reqOf(r, reqText),
        { text: 'Not shown', page: null },
        absent,
        `The lease requires ${label}${need !== null ? ` of at least ${money(need)}` : ''}; the insurance document shows none.`,
        absent === 'fail'
          ? `Ask the tenant for proof of ${label}${need !== null ? ` of at least ${money(need)}` : ''}.`
          : `Ask the tenant's insurer to confirm the policy includes ${label}${need !== null ? ` of at least ${money(need)}` : ''}.`,
      );
    }
    const cov = limitCov(l, 'Not shown');
    if (kind === 'workersComp' && l.statutory && (need === null || r.statutory))
      return item(field, reqOf(r, reqText), { ...cov, text: l.value !== null ? `Statutory; ${money(l.value)} E.L. each accident` : 'Statutory' }, 'pass', null);
    if (need === null) return item(field, reqOf(r, reqText), cov, 'pass', null);
    if (l.value === null) {
      return item(
        field,
        reqOf(r, reqText),
        cov,
        'warning',
        `The limit of ${label} is not shown.`,
        `Ask the tenant's insurer to confirm the ${label} limit is at least ${money(need)}.`,
      );
    }
    if (l.value >= need)
      return kind === 'liability' && r.aggregate ? aggregateCheck(field, r, ins, reqText, cov, ctx) : item(field, reqOf(r, reqText), cov, 'pass', null);
    return item(
      field,
      reqOf(r, reqText),
      cov,
      'fail',
      `${label} is ${money(l.value)}, below the ${money(need)} the lease requires (short by ${money(need - l.value)}).`,
      `Ask the tenant to raise ${label} from ${money(l.value)} to ${money(need)}.`,
    );
  };
}

/**
 * The general aggregate the lease asks for beside the per-occurrence limit (kept apart): at or above passes,
 * below fails, and not shown on the document is a warning (the per-occurrence limit alone cannot carry the pass).
 */
function aggregateCheck(
  field: ComparisonField,
  r: LeaseRequirement,
  ins: InsuranceFacts,
  reqText: string,
  cov: { text: string; page: number | null; evidence?: string },
  ctx: CheckContext,
): ComparisonItem {
  const need = r.aggregate!;
  const req = reqOf(r, `${reqText}; ${money(need)} aggregate`);
  const a = ins.liabilityAggregate;
  if (!a || a.value === null)
    return item(
      field,
      req,
      cov,
      'warning',
      `The lease also requires a ${money(need)} general aggregate; the insurance document does not show the aggregate.`,
      `Ask the tenant's insurer to confirm the general aggregate is at least ${money(need)}.`,
    );
  const both = { text: `${cov.text}; ${money(a.value)} (${a.label})`, page: cov.page, evidence: cov.evidence };
  if (a.value >= need && a.page !== null && ctx.uncertainPages?.insurance.includes(a.page))
    return item(
      field,
      req,
      both,
      'warning',
      `The general aggregate was read by OCR with low confidence on page ${a.page}; it is uncertain.`,
      `Check the general aggregate by hand against the insurance document.`,
    );
  if (a.value >= need) return item(field, req, both, 'pass', null);
  return item(
    field,
    req,
    both,
    'fail',
    `The general aggregate is ${money(a.value)}, below the ${money(need)} the lease requires (short by ${money(need - a.value)}).`,
    `Ask the tenant to raise the general aggregate from ${money(a.value)} to ${money(need)}.`,
  );
}

const rentersKinds = new Set(['renters']);
const liabilityKinds = new Set(['certificate', 'commercial_general_liability', 'businessowners', 'umbrella', 'commercial_umbrella']);

const rentersInsurance: Check = (lease, ins) => {
  const field = 'Renters Insurance Required';
  const r = lease.requirements.renters ?? (lease.type === 'commercial' ? lease.requirements.liability : undefined);
  const docText = `${ins.policyType}${ins.insured ? ` for ${ins.insured.value}` : ''}`;
  const cov = { text: docText, page: ins.insured?.page ?? ins.policyNumber?.page ?? null, evidence: ins.insured?.text };
  if (!required(r)) return notRequired(field, r, cov);
  const req = reqOf(r, lease.type === 'commercial' && !lease.requirements.renters ? "Tenant's liability insurance required" : 'Renters insurance required');
  const tenant = lease.tenant?.value;
  const covers = insuredCoversTenant(ins.insured?.value, tenant);
  const quote = ins.markers.find((m) => m.value === 'quote' || m.value === 'application');
  if (quote)
    return item(
      field,
      req,
      { ...cov, page: quote.page, evidence: quote.text },
      'fail',
      `The insurance document is a ${quote.value}, not an issued policy.`,
      'Ask the tenant for the issued renters policy declarations, not a quote or application.',
    );
  if (ins.kind === 'personal_auto' || ins.kind === 'commercial_auto')
    return item(
      field,
      req,
      cov,
      'fail',
      'The document is an auto policy; it does not insure the tenant at the premises.',
      'Ask the tenant for a renters (HO-4) policy; an auto policy does not satisfy the lease.',
    );
  const fitting = rentersKinds.has(ins.kind) || liabilityKinds.has(ins.kind) || (lease.type === 'commercial' && !!ins.liability);
  if (fitting && covers) return item(field, req, cov, 'pass', null);
  if (fitting && !tenant)
    return item(
      field,
      req,
      cov,
      'warning',
      'The tenant could not be read from the lease, so the insured could not be matched.',
      'Check by hand that the insured on the policy is the tenant named in the lease.',
    );
  if (fitting && !ins.insured)
    return item(
      field,
      req,
      cov,
      'warning',
      'The insured could not be read from the insurance document.',
      'Check by hand that the policy names the tenant as insured.',
    );
  if (ins.kind === 'homeowners' && covers)
    return item(
      field,
      req,
      cov,
      'warning',
      'The document is a homeowners policy of the tenant, not a renters policy for the leased unit.',
      'Confirm the homeowners policy covers the tenant at the leased premises, or ask for a renters policy.',
    );
  // Part of the tenant's name (a surname alone, another member of the household): not a fail on a name that may be
  // misread or incomplete.
  if (!covers && ins.insured && sharesAName(ins.insured.value, tenant))
    return item(
      field,
      req,
      cov,
      'warning',
      `The policy names ${ins.insured.value}, which matches only part of the tenant's name (${tenant}).`,
      `Check that the policy covers ${tenant}, or ask for a policy naming ${tenant} as insured.`,
    );
  if (!covers && ins.insured) {
    return item(
      field,
      req,
      cov,
      'fail',
      `The policy insures ${ins.insured.value}, not the tenant ${tenant}.`,
      lease.type === 'commercial' ? `Ask ${tenant} for a certificate of its own liability insurance.` : `Ask ${tenant} for a renters policy in their own name.`,
    );
  }
  return item(
    field,
    req,
    cov,
    'fail',
    `The document (${ins.policyType}) is not a renters or liability policy covering the tenant.`,
    `Ask the tenant for a renters (HO-4) or liability policy naming ${tenant ?? 'the tenant'} as insured.`,
  );
};

/** The roles a clause accepting "additional insured or interested party" takes (a certificate holder is neither). */
const EITHER_ROLES: PartyMention['role'][] = ['additional_insured', 'interested_party', 'additional_interest'];

function partyCheck(
  field: ComparisonField,
  kind: 'additionalInsured' | 'interestedParty',
  want: PartyMention['role'][],
  weaker: PartyMention['role'][],
  wantLabel: string,
): Check {
  return (lease, ins) => {
    const r = lease.requirements[kind];
    // A clause that names the party to list by name is met only by that party (the manager it names, not the owner).
    const party = r?.party;
    const who = party ?? landlordLabel(lease);
    const mine = ins.parties.filter((p) => (party ? sameParty(party, p.value) : matchesLandlord(lease, p.value)));
    // A clause that accepts either role is met by the other one too.
    const hit = mine.find((p) => want.includes(p.role) || (!!r?.eitherRole && EITHER_ROLES.includes(p.role)));
    const weak = mine.find((p) => weaker.includes(p.role));
    const shown = hit ?? weak ?? ins.parties.find((p) => want.includes(p.role));
    const cov = shown ? partyCov(shown) : { text: `No ${wantLabel} named`, page: null };
    if (!required(r)) return notRequired(field, r, cov);
    const req = reqOf(r, `${who} as ${wantLabel}`);
    if (hit) return item(field, req, cov, 'pass', null);
    // Without the landlord's name the party on the policy cannot be matched: not a fail, not a pass.
    const named = ins.parties.find((p) => want.includes(p.role) || weaker.includes(p.role));
    if (!party && !landlordNames(lease).length && named) return landlordUnread(field, req, partyCov(named), named.value);
    if (weak)
      return item(
        field,
        req,
        cov,
        'warning',
        `${weak.value} is named as ${weak.role.replace(/_/g, ' ')}, not as ${wantLabel}.`,
        kind === 'additionalInsured'
          ? `Request an endorsement naming ${who} as additional insured (it is only listed as ${weak.role.replace(/_/g, ' ')}).`
          : `Ask the insurer to list ${who} as interested party (it is named only as ${weak.role.replace(/_/g, ' ')}).`,
      );
    const other = ins.parties.find((p) => want.includes(p.role));
    return item(
      field,
      req,
      cov,
      'fail',
      other ? `${other.value} is named as ${wantLabel}, not ${who}.` : `${who} is not named as ${wantLabel}.`,
      kind === 'additionalInsured'
        ? `Request an endorsement naming ${who} as additional insured.`
        : `Ask the tenant to have ${who} added to the policy as interested party.`,
    );
  };
}

const certificateHolder: Check = (lease, ins) => {
  const field = 'Certificate Holder';
  const r = lease.requirements.certificateHolder;
  const holder = ins.parties.find((p) => p.role === 'certificate_holder');
  const who = landlordLabel(lease);
  const cov = holder
    ? { text: holder.value, page: holder.page, evidence: holder.text }
    : { text: ins.hasCertificateHolderSection ? 'Certificate holder not readable' : 'No certificate holder section (declarations page)', page: null };
  if (!required(r)) return notRequired(field, r, cov);
  const req = reqOf(r, `Certificate naming ${who} as holder`);
  // The landlord as holder; its manager alone holds the certificate for it, not as it: a human look, never a pass.
  if (holder && lease.landlord && sameParty(lease.landlord.value, holder.value)) return item(field, req, cov, 'pass', null);
  if (holder && matchesLandlord(lease, holder.value))
    return item(
      field,
      req,
      cov,
      'warning',
      `The certificate holder is the landlord's manager ${holder.value}, not ${who}.`,
      `Confirm the manager may hold the certificate for ${who}, or ask the tenant's agent to reissue it to ${who}.`,
    );
  if (holder && !landlordNames(lease).length) return landlordUnread(field, req, cov, holder.value, `the certificate holder ${holder.value}`);
  if (holder)
    return item(
      field,
      req,
      cov,
      'fail',
      `The certificate holder is ${holder.value}, not ${who}.`,
      `Ask the tenant's agent to reissue the certificate with ${who} as certificate holder.`,
    );
  return item(
    field,
    req,
    cov,
    'warning',
    ins.hasCertificateHolderSection ? 'The certificate holder could not be read.' : 'The document is not a certificate, so it names no certificate holder.',
    `Ask the tenant's agent for a certificate of insurance naming ${who} as certificate holder.`,
  );
};

function endorsementCheck(
  field: ComparisonField,
  kind: 'waiverOfSubrogation' | 'primaryNonContributory',
  pick: (i: InsuranceFacts) => InsuranceFacts['waiverOfSubrogation'],
  label: string,
): Check {
  return (lease, ins) => {
    const r = lease.requirements[kind];
    const e = pick(ins);
    const cov = e ? { text: e.value ? 'Shown' : 'Explicitly not provided', page: e.page, evidence: e.text } : { text: 'Not shown', page: null };
    if (!required(r)) return notRequired(field, r, cov);
    const req = reqOf(r, `${label} in favour of ${landlordLabel(lease)}`);
    if (e?.value === true) return item(field, req, cov, 'pass', null);
    if (e?.value === false)
      return item(
        field,
        req,
        cov,
        'fail',
        `The insurance document states there is no ${label.toLowerCase()}.`,
        `Request a ${label.toLowerCase()} endorsement in favour of ${landlordLabel(lease)}.`,
      );
    return item(
      field,
      req,
      cov,
      'warning',
      `The insurance document does not show ${label.toLowerCase()}.`,
      `Ask the tenant's insurer to confirm or add a ${label.toLowerCase()} endorsement in favour of ${landlordLabel(lease)}.`,
    );
  };
}

function addressCheck(lease: LeaseFacts, ins: InsuranceFacts): ComparisonItem {
  const field = 'Property Address';
  const la = lease.propertyAddress;
  const ia = ins.propertyAddress;
  const req = la ? { text: la.value, page: la.page, clause: la.text } : { text: 'Not found in the lease', page: null };
  const cov = ia
    ? { text: ia.from === 'mailing' ? `${ia.value} (insured's mailing address)` : ia.value, page: ia.page, evidence: ia.text }
    : { text: 'Not shown', page: null };
  if (!la)
    return item(
      field,
      req,
      cov,
      'warning',
      'The property address could not be read from the lease.',
      'Check by hand that the policy covers the leased premises.',
    );
  if (!ia)
    return item(
      field,
      req,
      cov,
      'warning',
      'The insurance document shows no address for the insured premises.',
      `Ask the tenant for a policy or certificate that lists ${la.value} as the insured location.`,
    );
  const a = addressParts(la.value);
  const b = addressParts(ia.value);
  const sameStreet =
    !!a.number &&
    a.number === b.number &&
    !!a.street &&
    !!b.street &&
    (a.street === b.street || a.street.split(' ')[0] === b.street.split(' ')[0]) &&
    (!a.zip || !b.zip || a.zip === b.zip);
  // The same street to its end ("12 Oak" and "12 Oak St" are; "4410 Ridgecrest Dr" and "4410 Ridgecrest Ct" are not).
  const wholeStreet = !!a.street && !!b.street && (a.street === b.street || a.street.startsWith(`${b.street} `) || b.street.startsWith(`${a.street} `));
  if (sameStreet && !wholeStreet)
    return item(
      field,
      req,
      cov,
      'warning',
      `The policy's street (${ia.value}) is not written as the lease's (${la.value}).`,
      `Check that the policy covers ${la.value}, or ask the tenant to have the insured location corrected.`,
    );
  if (sameStreet && (a.unit ?? '') === (b.unit ?? '')) return item(field, req, cov, 'pass', null);
  if (sameStreet) {
    const gap = !b.unit
      ? `The policy's address has no unit; the lease is for unit ${a.unit}.`
      : !a.unit
        ? `The policy names unit ${b.unit}; the lease names none.`
        : `The policy names unit ${b.unit}; the lease is for unit ${a.unit}.`;
    return item(field, req, cov, 'warning', gap, `Ask the tenant to have the insured location corrected to ${la.value}.`);
  }
  return item(
    field,
    req,
    cov,
    'fail',
    `The policy's address (${ia.value}) is not the leased premises (${la.value}).`,
    `Ask the tenant for a policy covering ${la.value}.`,
  );
}

/** The 15 checks in the order of SPEC §2.8. */
export const checks: [ComparisonField, Check][] = [
  ['Renters Insurance Required', rentersInsurance],
  ['General Liability', limitCheck('General Liability', 'liability', (i) => i.liability, 'fail', 'liability coverage')],
  ['Property Damage', limitCheck('Property Damage', 'propertyDamage', (i) => i.propertyDamage, 'warning', 'coverage for damage to the premises')],
  ['Workers Compensation', limitCheck('Workers Compensation', 'workersComp', (i) => i.workersComp, 'fail', "workers' compensation")],
  ['Umbrella/Excess Liability', limitCheck('Umbrella/Excess Liability', 'umbrella', (i) => i.umbrella, 'fail', 'umbrella/excess liability')],
  ['Auto Liability', limitCheck('Auto Liability', 'auto', (i) => i.auto, 'fail', 'auto liability')],
  ['Professional Liability', limitCheck('Professional Liability', 'professional', (i) => i.professional, 'fail', 'professional liability')],
  [
    'Additional Insured',
    partyCheck(
      'Additional Insured',
      'additionalInsured',
      ['additional_insured'],
      ['interested_party', 'additional_interest', 'certificate_holder'],
      'additional insured',
    ),
  ],
  [
    'Interested Party',
    partyCheck('Interested Party', 'interestedParty', ['interested_party', 'additional_interest'], ['additional_insured'], 'interested party'),
  ],
  ['Certificate Holder', certificateHolder],
  ['Waiver of Subrogation', endorsementCheck('Waiver of Subrogation', 'waiverOfSubrogation', (i) => i.waiverOfSubrogation, 'Waiver of subrogation')],
  [
    'Primary & Non-Contributory',
    endorsementCheck('Primary & Non-Contributory', 'primaryNonContributory', (i) => i.primaryNonContributory, 'Primary and non-contributory wording'),
  ],
  ['Property Address', (l, i) => addressCheck(l, i)],
  ['Policy Period', policyPeriod],
  ['Policy Status', policyStatus],
];

/** Run the 15 checks. */
export function compare(lease: LeaseFacts, ins: InsuranceFacts, ctx: CheckContext): ComparisonItem[] {
  return checks.map(([, check]) => settledRequirement(settledAbsence(requireEvidence(check(lease, ins, ctx), ctx), lease, ctx), lease));
}
