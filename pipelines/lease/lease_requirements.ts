// The insurance the lease requires of the tenant: each coverage with its limit (followed by reference where the
// lease says "the amount set forth in Section …"), attributed to the party that must carry it.
import { amountsIn, type Clause } from './text.ts';
import type { LeaseRequirement, RequirementKind } from './schema.ts';
import type { LabelledEntry } from './lease_entries.ts';

/** Each requirement: what names it in a clause. */
const REQUIREMENT_TERMS: [RequirementKind, RegExp][] = [
  [
    'renters',
    /\brenters?['’]?s?\s+(?:insurance|policy|coverage)|\brenter['’]s\s+(?:insurance|policy|coverage)|\btenant['’]s\s+(?:insurance\s+)?policy\s+\(HO-?4\)|\bHO-?4\b|\bcontents insurance/i,
  ],
  [
    'propertyDamage',
    /\bproperty damage(?: liability)?|damage to (?:the )?(?:rented|leased) premises|damage to (?:the )?property of others|fire legal liability|legal liability for damage/i,
  ],
  ['liability', /\b(?:commercial general liability|general liability|personal liability|liability insurance|liability coverage|public liability|CGL)\b/i],
  ['workersComp', /\bworkers?['’]?s?\s+comp(?:ensation)?\b/i],
  ['umbrella', /\bumbrella\b|\bexcess liability\b/i],
  ['auto', /\b(?:business |commercial )?(?:auto|automobile|motor vehicle|vehicle)\s+(?:liability|insurance)\b|\bbusiness auto\b/i],
  ['professional', /\bprofessional liability\b|\berrors (?:and|&) omissions\b|\bE\s?&\s?O\b/i],
  // "naming … Landlord … as additional insureds", or a policy "insuring Tenant, Landlord, …" (the landlord insured under it).
  ['additionalInsured', /\badditional(?:ly)? insureds?\b|\binsuring\s+(?:both\s+)?(?:Tenant\s*(?:,|and)\s*)?(?:the\s+)?Landlord\b/i],
  ['interestedParty', /\binterested part(?:y|ies)\b|\badditional interests?\b/i],
  [
    'certificateHolder',
    /\bcertificate holder\b|\bcertificates?\s+(?:of\s+(?:such\s+|all\s+such\s+|the\s+|its\s+|said\s+)?(?:liability\s+|renters?['’]?s?\s+)?(?:insurance|coverage|policies)|evidencing)\b|\bcertificates?\s+thereof\b|\bevidence of (?:such |the |said )?insurance\b/i,
  ],
  ['waiverOfSubrogation', /\bwaiver of subrogation\b|\bwaive\w*\s+(?:all\s+)?(?:rights?\s+(?:of\s+)?)?subrogation\b|\bsubrogation\b/i],
  [
    'primaryNonContributory',
    /\bprimary\s+(?:and|&)\s+non-?\s?contributory\b|\bprimary and not contributing\b|\bnon-?contributory\b|\b(?:shall|will)\s+(?:be|provide)\s+primary\b|\bprimary coverage\b|\bprimary (?:insurance|basis)\b|\bprimary\s+(?:to|over)\s+(?:any|all)\b/i,
  ],
];
const COVERAGES = new Set<RequirementKind>(['renters', 'liability', 'propertyDamage', 'workersComp', 'umbrella', 'auto', 'professional']);
const NO_AMOUNT = new Set<RequirementKind>([
  'additionalInsured',
  'interestedParty',
  'certificateHolder',
  'waiverOfSubrogation',
  'primaryNonContributory',
  'renters',
]);

const OBLIGATION = /\b(shall|must|will|agrees? to|required|requires|obtain|maintain|carry|keep|provide|name|naming|list|include)\b/i;
/** A coverage required of nobody named ("Liability coverage of at least $100,000 is required"). */
const COVERAGE_OBLIGATION =
  /\b(?:shall|must|will|agrees? to|is required to|are required to)\s+(?:\w+\s+){0,3}?(?:maintain|carry|obtain|procure|keep|provide|purchase|have|include|hold|secure)\b|\b(?:is|are|be)\s+required\b|\brequires?\b|\bmust\b|\bminimum\b|\bmandatory\b|\bcompulsory\b/i;
/** A duty that applies only if the tenant does something ("if Tenant keeps a waterbed"), not if it fails one. */
const CONDITION =
  /\b(?:if|in the event(?: that)?|should)\s+(?:the\s+)?(?:Tenants?|Residents?|Lessees?)\s+(?!fails?\b|does not\b|do not\b|shall\b|is\b|are\b)(?:keeps?|has|have|owns?|installs?|uses?|brings?|operates?|serves?|sells?|stores?|hires?|employs?|elects?|chooses?|opts?|subscribes?|offers?|provides?|delivers?|caters?|leases?|rents?)\b[^,;]{0,60}/i;
/** "a certificate of insurance or declarations page", "A copy of the declarations page is acceptable proof". */
const DECLARATIONS_ACCEPTED =
  /\bor\s+(?:a\s+(?:copy\s+of\s+(?:the\s+)?)?|the\s+|its\s+)?declarations?\s+page\b|\bdeclarations?\s+page\b[^.;]{0,60}\b(?:is|are|will be|shall be)\s+(?:an\s+)?(?:acceptable|accepted|sufficient)\b|\b(?:such as|including)\s+(?:a\s+copy\s+of\s+)?(?:the\s+)?declarations?\s+page\b/i;
const NEGATED =
  /\b(?:is|are)\s+not\s+required\b|\bnot\s+required\s+to\b|\bneed not\b|\bis optional\b|\b(?:encouraged|recommended) but not required\b|\bno\s+(?:renters?|insurance)\s+(?:insurance\s+)?is\s+required|\b(?:does|do|will|shall)\s+not\s+require\b|\bnot a condition of\b/i;

/** Whose insurance a sentence speaks of, from the duty it states. */
type Owner = 'tenant' | 'landlord' | 'contractor' | 'mutual';
const DUTIES: [Owner, RegExp][] = [
  [
    'contractor',
    /\b(?:contractors?|subcontractors?|vendors?|movers?|service providers?)\b[^.;]{0,60}?\b(?:to|shall|must|will)\s+(?:\w+\s+){0,3}?(?:carry|maintain|obtain|procure|keep|purchase)\b|\b(?:require|cause)\s+(?:that\s+)?(?:each|all|any|its|such|the)?\s*(?:of\s+its\s+)?(?:contractors?|subcontractors?)\b|\b(?:contractors?|subcontractors?)['’]s?\s+insurance\b|\b(?:contractors?|subcontractors?)\s+(?:carries|maintains|has|holds|obtains|procures)\b|\b(?:insurance|certificates?|polic(?:y|ies)|evidence)\s+(?:[\w’'-]+\s+){0,3}?from\s+(?:all\s+|any\s+|each\s+|its\s+|such\s+|the\s+)?(?:contractors?|subcontractors?|vendors?)\b/gi,
  ],
  ['landlord', /\bLandlord\s+(?:shall|will|must|agrees to)\s+(?:\w+\s+){0,4}?(?:maintain|carry|obtain|procure|keep|insure)\b|\bLandlord['’]s\s+Insurance\b/g],
  [
    'mutual',
    /\b(?:each party|either party|both parties|Landlord and Tenant|Tenant and Landlord|the parties)\b[^.;]{0,80}?\b(?:shall|will|must|waives?|hereby)\b/gi,
  ],
  [
    'tenant',
    /\b(?:Tenants?|Lessees?|Residents?|Occupants?)(?:\s*,[^,;.]{1,60},)?\s+(?:shall|must|will|agrees? to|is required to|are required to|covenants to)[\s,]+(?:[\w’'-]+[\s,]+){0,6}?(?:maintain|carry|obtain|procure|keep|provide|purchase|furnish|deliver|deposit|name|cause|have|hold|secure)\b|\bTenant['’]s\s+Insurance\b/g,
  ],
];

/** The duties of a clause with where each starts. */
function dutiesOf(text: string): { owner: Owner; at: number }[] {
  const out: { owner: Owner; at: number }[] = [];
  for (const [owner, re] of DUTIES) for (const m of text.matchAll(re)) out.push({ owner, at: m.index ?? 0 });
  return out.sort((a, b) => a.at - b.at);
}
const LIST_ITEM = /^\(?(?:[a-zA-Z]|[ivx]{1,4}|\d{1,2})[).]/;
/** "under all liability, excess and": policies named as those another requirement applies to. */
const UNDER_POLICIES =
  /\b(?:under|in|to)\s+(?:all|any|each|every|such)\s+(?:(?:of\s+)?(?:its|the|Tenant['’]s)\s+)?(?:(?!(?:shall|will|must|maintain|carry|obtain|keep|procure|provide|purchase)\b)[\w’'-]+,?\s+){0,4}?(?:(?:and|or)\s+)?$/i;
/** The text of the list item or clause part a coverage's words stand in: after the last "(E) " or ";". */
function ownItem(before: string): string {
  let from = before.lastIndexOf(';') + 1;
  for (const m of before.matchAll(/\((?:[a-zA-Z]|[ivx]{1,4}|\d{1,2})\)\s/g)) from = Math.max(from, m.index ?? 0);
  return before.slice(from);
}
/** A coverage the landlord may ask for later: whether it is required is not settled by the lease's words. */
const ON_REQUEST =
  /\bLandlord\s+may\s+(?:\w+\s+){0,5}?(?:require|request|demand)\b|\b(?:if|when|upon being)\s+(?:so\s+)?(?:requested|required)\s+by\s+Landlord\b|\bat\s+Landlord['’]s\s+(?:request|option|election)\b/i;
/** A coverage only permitted, not required ("may be maintained under an umbrella policy"). */
const PERMITTED = /\bmay\b(?![^.;]*\b(?:shall|must)\b)/i;
/**
 * Amounts incorporated by reference: "at least equal to the limits set forth in Section 1.1", "with limits not less
 * than those set forth in Section 1.9", "in the amounts set forth in the Lease Summary"; the section's number, when it
 * names one, is group 1.
 */
const BY_REFERENCE =
  /\b(?:limits?|amounts?|minimums?)\b[^.;$]{0,40}?\b(?:(?:set forth|specified|stated|provided|described|shown|listed|identified)\s+)?in\s+(?:(?:Section|Article|Paragraph|Item)\s+(\d{1,2}(?:\.\d{1,2})*)|Exhibit|Schedule|the\s+(?:[A-Z][A-Za-z]*\s+){0,4}(?:Summary|Information|Provisions|Terms|Schedule|Data|Sheet)\b|the Basic|the Reference)/i;
const REFERENCE_LABEL: Partial<Record<RequirementKind, RegExp>> = {
  // "Commercial General Liability", "Tenant's Liability Insurance" — not another coverage's liability ("Umbrella Liability").
  liability:
    /^(?!.*\b(?:umbrella|excess|auto(?:mobile)?|professional|workers|employers|liquor|pollution)\b).*(?:\b(?:general|commercial)\s+liability\b|\bCGL\b|\bliability\b.*\b(?:insurance|limits?|amounts?|coverage)\b|\binsurance (?:limits?|amounts?)\b)/i,
  umbrella: /\b(?:umbrella|excess)\b/i,
  auto: /\bauto(?:mobile)?\b/i,
  propertyDamage: /\bproperty damage\b/i,
};

/** A party named to be listed on the policy: "listing Keystone Realty LLC as an interested party", "name X as additional insured". */
const NAMED_PARTY =
  /\b(?:nam(?:e|es|ing)|list(?:s|ing)?|add(?:s|ing)?|designat(?:e|es|ing)|show(?:s|ing)?|includ(?:e|es|ing))\s+([A-Z][A-Za-z0-9&.,'’\- ]{2,80}?)\s+as\s+(?:an?\s+)?(?:interested part(?:y|ies)|additional(?:ly)? insureds?|additional interests?)\b/;
/** A listing that accepts either role: "as additional insured or interested party", "interested party or additional insured". */
const EITHER_ROLE =
  /\badditional(?:ly)? insureds?\s+(?:and\/)?or\s+(?:an?\s+)?(?:interested part(?:y|ies)|additional interests?)\b|\b(?:interested part(?:y|ies)|additional interests?)\s+(?:and\/)?or\s+(?:an?\s+)?additional(?:ly)? insureds?\b/i;
/** Words that name a party by its role, not by its name ("Landlord", "Owner and its agents", "Sublessor"). */
const BY_ROLE =
  /^(?:the\s+)?(?:(?:Sub)?(?:Landlord|Lessor)|Sub-?landlord|Owner|Licensor|Management|Manager|Agent|Lender|Mortgagee|Tenant|Lessee|each|all|both|such|any|its|their)\b/;
/** What follows a name in a listing: "X and its manager", "X, its members and agents". */
const ALONG_WITH = /\s*(?:,|\band\b)\s+(?:its|their|his|her|the|Landlord['’]s|Owner['’]s)\b.*$/;

/**
 * The one party a listing clause names by name (two words or more, not a role), when it does. A name listed with
 * its people ("X and its manager") is the landlord's group, which the landlord's names match as before.
 */
function namedParty(text: string): string | undefined {
  const m = NAMED_PARTY.exec(text);
  if (!m || BY_ROLE.test(m[1]) || ALONG_WITH.test(m[1])) return undefined;
  const name = m[1]
    .replace(/\s+(?:to|on|under|in)\s+(?:(?:the|each|all|such|its|Tenant['’]s|Resident['’]s)\s+)?(?:polic(?:y|ies)|insurance|coverage)\b.*$/, '')
    .replace(/,$/, '')
    .trim();
  return name.split(/\s+/).length >= 2 ? name : undefined;
}

/** The per-occurrence (or combined single) amount and the aggregate in a window of text. */
function limitsIn(window: string): { amount: number | null; aggregate: number | null; csl: boolean } {
  const found = amountsIn(window);
  if (!found.length) return { amount: null, aggregate: null, csl: false };
  const basis = (a: { index: number; text: string }) => window.slice(a.index + a.text.length, a.index + a.text.length + 40).toLowerCase();
  const aggregate = found.find((a) => /^[^$]{0,25}\baggregate\b/.test(basis(a)))?.value ?? null;
  const occ = found.find((a) =>
    /^[^$]{0,25}\b(?:per|each|any one)\s+(?:occurrence|accident|claim|person)\b|^[^$]{0,25}\bcombined single limit\b/.test(basis(a)),
  );
  const first = occ ?? found.find((a) => a.value !== aggregate) ?? found[0];
  const csl = /combined single limit|\bcsl\b/i.test(window.slice(Math.max(0, first.index - 40), first.index + first.text.length + 40));
  return { amount: first.value, aggregate: aggregate !== first.value ? aggregate : null, csl };
}

/** Words before "property damage" that make it the scope of a liability cover ("bodily injury, personal injury and"). */
const SCOPE_OF_LIABILITY = /\bbodily injury\b[^.;$]{0,40}$/i;

/** Money after the requirement's words in the clause, preferring "per occurrence"/"each occurrence" amounts. */
function amountFor(text: string, at: number, kind: RequirementKind): { amount: number | null; aggregate: number | null; csl: boolean } {
  const after = text.slice(at);
  // Stop at the next coverage named in the same sentence.
  let stop = after.length;
  for (const [k, re] of REQUIREMENT_TERMS) {
    if (k === kind || NO_AMOUNT.has(k)) continue;
    const m = new RegExp(re.source, 'ig');
    m.lastIndex = 12;
    let hit = m.exec(after);
    // "claims for bodily injury or death or property damage" is what a liability cover covers, not a coverage of its own.
    while (hit && k === 'propertyDamage' && kind !== 'propertyDamage' && SCOPE_OF_LIABILITY.test(after.slice(Math.max(0, hit.index - 50), hit.index)))
      hit = m.exec(after);
    if (hit && hit.index < stop && hit.index > 10) stop = hit.index;
  }
  const inWindow = limitsIn(after.slice(0, stop));
  if (inWindow.amount !== null) return inWindow;
  // "... not less than $1,000,000 for commercial general liability": an amount just before.
  // Not across a list item's start ("$2,000,000 each occurrence, and (d) workers' compensation").
  const before = amountsIn(ownItem(text.slice(Math.max(0, at - 60), at)));
  return { amount: before.length ? before[before.length - 1].value : null, aggregate: null, csl: false };
}

/** Another coverage's name around "liability insurance": "automobile liability insurance", "employers liability". */
const OTHER_LIABILITY =
  /\b(?:auto(?:mobile)?|(?:motor\s+)?vehicle|umbrella|excess|professional|pollution|environmental|employer['’]?s['’]?|liquor|cyber|product)\s+$/i;
const GLOBAL = new Map<RegExp, RegExp>();
/** The first words in a text naming the requirement: for liability, not those of another coverage's name. */
function termIn(kind: RequirementKind, re: RegExp, text: string): RegExpExecArray | null {
  let g = GLOBAL.get(re);
  if (!g) GLOBAL.set(re, (g = new RegExp(re.source, `${re.flags}g`)));
  g.lastIndex = 0;
  let first: RegExpExecArray | null = null;
  for (let m = g.exec(text); m; m = g.exec(text)) {
    if (kind === 'liability' && /\bproperty damage liability\b/i.test(m[0])) continue;
    if (kind === 'liability' && OTHER_LIABILITY.test(text.slice(Math.max(0, m.index - 30), m.index))) continue;
    // A contractor's coverage named first ("require its movers to carry liability insurance of $1,000,000 and
    // Tenant shall maintain liability insurance of $2,000,000"): the tenant's own mention after it is the one.
    if (!OTHERS_NEAR.test(text.slice(Math.max(0, m.index - 60), m.index + m[0].length))) return m;
    first ??= m;
  }
  return first;
}
const OTHERS_NEAR = /\b(?:contractors?|subcontractors?|vendors?|movers?|each such party)\b/i;

const TICKED = /\[\s*[xX✓✔]\s*\]|[☑☒✔✓]/;
const BOX = /\[\s*[xX✓✔]?\s*\]|[☑☒✔✓☐□❑]/g;
const words = (s: string) => s.trim().split(/\s+/).filter(Boolean);

/**
 * A clause that offers choices by checkboxes, read as the ticked choices say it: "Tenant [X] is [ ] is not required
 * to maintain …" reads "Tenant is required to maintain …". An unticked option ends at the next box; the last one,
 * when the options before it are a few words, is as long as they are (or one word longer for its "not"), else it
 * runs to the sentence's end. A clause with no ticked box is left as written.
 */
export function chosenOptions(text: string): string {
  if (!TICKED.test(text)) return text;
  const boxes = [...text.matchAll(BOX)];
  let out = text.slice(0, boxes[0].index);
  let previous: string[] = [];
  boxes.forEach((b, k) => {
    const from = (b.index ?? 0) + b[0].length;
    const option = text.slice(from, boxes[k + 1]?.index ?? text.length);
    const ticked = TICKED.test(b[0]);
    if (k < boxes.length - 1) {
      if (ticked) out += option;
      previous = words(option);
      return;
    }
    const w = words(option);
    const short = previous.length > 0 && previous.length <= 3;
    const negation = short && /^(?:not|no)$/i.test(w[previous.length] ?? '') && w.slice(0, previous.length).join(' ') === previous.join(' ');
    const own = short ? previous.length + (negation ? 1 : 0) : (/[.;]/.exec(option)?.index ?? option.length);
    if (ticked) out += option;
    else if (short) out += ` ${w.slice(own).join(' ')}`;
    else out += option.slice(own as number);
  });
  return out.replace(/\s{2,}/g, ' ');
}

/** A duty that puts the insurance in an exhibit: "Tenant shall carry the insurance described in Exhibit C". */
const IN_SCHEDULE =
  /\b(?:carry|maintain|obtain|procure|keep|provide)\b[^.]{0,80}?\binsurance\b[^.]{0,40}?\b(?:described|set forth|listed|specified|required|contained|stated)\s+(?:in|on)\s+(?:the\s+)?(Exhibit|Schedule|Addendum|Rider)\s+["“]?([A-Z0-9]{1,3})\b/i;

/**
 * The clauses of the exhibit a duty puts the insurance in, with the duty's owner: "(a) Commercial general liability
 * insurance of not less than …" under "EXHIBIT C - TENANT'S INSURANCE" is the tenant's requirement though it states
 * no duty of its own. The exhibit runs from its heading to the next exhibit's.
 */
function scheduledClauses(all: Clause[]): Map<number, Owner> {
  const out = new Map<number, Owner>();
  for (const c of all) {
    const m = IN_SCHEDULE.exec(c.text);
    const owner = m && dutiesOf(c.text)[0]?.owner;
    if (!m || !owner) continue;
    const heading = new RegExp(`^\\s*${m[1]}\\s+["“]?${m[2]}\\b`, 'i');
    const from = all.findIndex((x) => x !== c && heading.test(x.text));
    if (from < 0) continue;
    for (let k = from; k < all.length; k++) {
      if (k > from && /^\s*(?:EXHIBIT|SCHEDULE|ADDENDUM|RIDER)\s+["“]?[A-Z0-9]{1,3}\b/.test(all[k].text)) break;
      out.set(k, owner);
    }
  }
  return out;
}

export function requirements(all: Clause[], entries: LabelledEntry[]): Partial<Record<RequirementKind, LeaseRequirement>> {
  // Clauses read as their ticked choices say; each requirement quotes the clause as the page writes it.
  const written = new Map<Clause, string>();
  all = all.map((c) => {
    const read = chosenOptions(c.text);
    if (read === c.text) return c;
    const chosen = { ...c, text: read };
    written.set(chosen, c.text);
    return chosen;
  });
  const quote = (c: Clause) => (written.get(c) ?? c.text).slice(0, 600);
  const out: Partial<Record<RequirementKind, LeaseRequirement>> = {};
  const weakCertificate = new Set<LeaseRequirement>();
  // Whose insurance a clause speaks of: its own duty, else the sentence before it in the paragraph, else (for a
  // list item) the text the list follows ("Tenant shall maintain the following insurance: (a) …"). Duties are
  // read only in the clauses that speak of insurance and in those they inherit their owner from.
  const read = new Map<number, { owner: Owner; at: number }[]>();
  const dutiesAt = (k: number) => read.get(k) ?? read.set(k, dutiesOf(all[k].text)).get(k)!;
  // A list item keeps the owner the text before it ended with; any other paragraph starts afresh.
  const startsAfresh = (k: number) => k === 0 || (all[k].para !== all[k - 1].para && !LIST_ITEM.test(all[k].text));
  /** The owner in force after clause k: the last duty it states, else the one before it unless it starts afresh. */
  const ownerAfter = (k: number): Owner | null => {
    for (let j = k; j >= 0; j--) {
      const d = dutiesAt(j);
      if (d.length) return d[d.length - 1].owner;
      if (startsAfresh(j)) return null;
    }
    return null;
  };
  const scheduled = scheduledClauses(all);
  for (const [ci, c] of all.entries()) {
    // ("Landlord must be listed as an interested party": the party's words alone, after the insurance sentence.)
    if (!/insur|subrogation|liability|coverage|policy|policies|workers|certificate|interested part|additional interest|umbrella|excess|\bCGL\b/i.test(c.text))
      continue;
    const duties = dutiesAt(ci);
    const inherited = (startsAfresh(ci) ? null : ownerAfter(ci - 1)) ?? scheduled.get(ci) ?? null;
    for (const [kind, re] of REQUIREMENT_TERMS) {
      const m = termIn(kind, re, c.text);
      if (!m) continue;
      // "subrogation" alone counts only as a mutual waiver clause.
      // A heading ("Insurance, Subrogation, and Waiver of Claims") states no duty.
      if (
        kind === 'waiverOfSubrogation' &&
        /^subrogation$/i.test(m[0]) &&
        !(/\bwaiv(?:e|es|ed|ing)\b/i.test(c.text) || (/waive/i.test(c.text) && OBLIGATION.test(c.text)))
      )
        continue;
      // A coverage named as where another requirement applies ("as additional insureds under all liability, excess
      // and umbrella policies") is not itself required.
      if (
        COVERAGES.has(kind) &&
        UNDER_POLICIES.test(c.text.slice(Math.max(0, m.index - 60), m.index)) &&
        /^[^.;$]{0,40}?\bpolic(?:y|ies)\b/i.test(c.text.slice(m.index + m[0].length))
      )
        continue;
      // Whose: the last duty stated before the words, else the first after them, else the inherited one.
      const owner = [...duties].reverse().find((d) => d.at <= m.index)?.owner ?? duties[0]?.owner ?? inherited;
      if (owner === 'contractor' || owner === 'landlord') continue;
      // A contractor's or another party's policy named right beside the words.
      if (/\b(?:contractors?|subcontractors?|vendors?|movers?|each such party)\b/i.test(c.text.slice(Math.max(0, m.index - 60), m.index + m[0].length + 60)))
        continue;
      // Permission is read in the coverage's own item of a list ("… as their interests may appear, (E) workers'
      // compensation insurance …" is no permission for (E)).
      const item = ownItem(c.text.slice(0, m.index));
      if (COVERAGES.has(kind) && PERMITTED.test(item)) {
        // "Landlord may require Tenant to carry umbrella insurance": not required today, but not settled either.
        const at = ON_REQUEST.exec(item);
        if (at && !out[kind])
          out[kind] = {
            kind,
            required: false,
            uncertain: `the lease lets the landlord require it ("${at[0]}")`,
            amount: null,
            statutory: false,
            clause: quote(c),
            page: c.page,
          };
        continue;
      }
      // A coverage to carry is named as insurance ("workers' compensation insurance"), not as a cost in a list.
      if (
        COVERAGES.has(kind) &&
        !/insur|liabilit|coverage|polic|limit|statutory|\$/i.test(`${m[0]} ${c.text.slice(m.index + m[0].length, m.index + m[0].length + 60)}`)
      )
        continue;
      // Its premiums or costs are an expense (operating costs), not a requirement.
      if (
        COVERAGES.has(kind) &&
        /^\W*(?:insurance\s+)?(?:premiums?|costs?|expenses?|charges?)\b/i.test(c.text.slice(m.index + m[0].length, m.index + m[0].length + 40))
      )
        continue;
      // "for bodily injury and property damage": the scope of a liability cover, not a property damage requirement.
      if (kind === 'propertyDamage' && SCOPE_OF_LIABILITY.test(c.text.slice(Math.max(0, m.index - 50), m.index))) continue;
      // "if Tenant keeps a waterbed …, Tenant shall carry liability insurance": required only on a fact the
      // documents do not state — not settled either way. Read in the coverage's own list item.
      // The condition before the coverage's words in its item, or after them ("…, if Tenant elects to subscribe").
      const condition = COVERAGES.has(kind)
        ? (CONDITION.exec(ownItem(c.text.slice(0, m.index))) ?? CONDITION.exec(c.text.slice(m.index).split(/;|\(\s*[a-z0-9]{1,3}\s*\)/)[0]))
        : null;
      if (condition) {
        if (!out[kind])
          out[kind] = {
            kind,
            required: false,
            uncertain: `the lease requires it only on a condition ("${condition[0]} …")`,
            amount: amountFor(c.text, m.index + m[0].length, kind).amount,
            statutory: false,
            clause: quote(c),
            page: c.page,
          };
        continue;
      }
      const negated = NEGATED.test(c.text) && (kind === 'renters' || kind === 'liability');
      if (!negated && owner !== 'tenant' && !(COVERAGES.has(kind) ? COVERAGE_OBLIGATION : OBLIGATION).test(c.text)) {
        // A coverage stated with a limit and no duty the rules can read ("Tenant [ ] is [ ] is not required to
        // maintain liability insurance of $100,000") is not settled: uncertain, never a "Not required" pass.
        const limits = COVERAGES.has(kind) && !NO_AMOUNT.has(kind) && !owner ? amountFor(c.text, m.index + m[0].length, kind) : null;
        if (limits?.amount != null && !out[kind])
          out[kind] = {
            kind,
            required: false,
            uncertain: `the lease names it with a limit of $${limits.amount.toLocaleString('en-US')}, but no duty to carry it could be read`,
            amount: limits.amount,
            statutory: false,
            clause: quote(c),
            page: c.page,
          };
        continue;
      }
      // A lease that takes a declarations page as proof asks for no certificate holder.
      if (
        kind === 'certificateHolder' &&
        DECLARATIONS_ACCEPTED.test(
          all
            .filter((x) => x.para === c.para)
            .map((x) => x.text)
            .join(' '),
        )
      )
        continue;
      const prev = out[kind];
      // "Evidence of insurance" in passing gives way to a clause on certificates.
      const weak = kind === 'certificateHolder' && /^evidence/i.test(m[0]);
      if (prev && kind === 'certificateHolder' && weakCertificate.has(prev) && !weak) out[kind] = undefined;
      let limits = NO_AMOUNT.has(kind) ? { amount: null, aggregate: null, csl: false } : amountFor(c.text, m.index + m[0].length, kind);
      let amountSource: LeaseRequirement['amountSource'];
      // A sentence cut by a page break states its limits on the next page ("… by Tenant" / "of not less than: $5,000,000").
      const next = all[ci + 1];
      if (limits.amount === null && !NO_AMOUNT.has(kind) && next && next.page > c.page && next.para === c.para && !/[.;:]["”]?$/.test(c.text)) {
        const joined = `${c.text} ${next.text}`;
        const more = amountFor(joined, m.index + m[0].length, kind);
        if (more.amount !== null) {
          limits = more;
          amountSource = { page: next.page, text: next.text.slice(0, 600), how: 'continued' };
        }
      }
      // And the mirror: the words a page break cut, with the limits before the break ("… provides at least $300,000 of
      // personal" / "liability coverage."): read as one sentence, the limits cited where they stand.
      const before = all[ci - 1];
      if (limits.amount === null && !NO_AMOUNT.has(kind) && before && before.page < c.page && before.para === c.para && !/[.;:]["”]?$/.test(before.text)) {
        const more = amountFor(`${before.text} ${c.text}`, before.text.length + 1 + m.index + m[0].length, kind);
        if (more.amount !== null) {
          limits = more;
          amountSource = { page: before.page, text: before.text.slice(-600), how: 'continued' };
        }
      }
      const label = REFERENCE_LABEL[kind];
      const reference = limits.amount === null && label ? BY_REFERENCE.exec(c.text) : null;
      let unresolved: string | undefined;
      if (reference && label) {
        // The item the reference numbers, else the first summary item on this coverage that states an amount.
        const stated = entries.filter((x) => label.test(x.label) && amountsIn(x.value).length);
        const numbered = reference[1] ? stated.find((x) => x.text.startsWith(`${reference[1]} `) || x.text.startsWith(`${reference[1]}. `)) : undefined;
        const e = numbered ?? stated[0];
        if (e) {
          limits = limitsIn(e.value);
          amountSource = { page: e.page, text: e.text, how: 'reference' };
        } else unresolved = `its limits are those of another part of the lease ("${reference[0]}"), which could not be read`;
      }
      const statutory =
        kind === 'workersComp' &&
        /statutory|statutes|required by (?:applicable\s+)?(?:state\s+)?law|as required by|in the amount,? if any,? required|in amounts required by/i.test(
          c.text,
        );
      // The first clause wins unless a later one gives the amount the first lacked.
      // (A coverage the landlord only may ask for gives way to a clause that requires it.)
      const onRequest = out[kind] && !out[kind]!.required && !!out[kind]!.uncertain && !negated;
      if (out[kind] && !onRequest && !(out[kind]!.amount === null && limits.amount !== null && out[kind]!.required)) continue;
      // An option of a checkbox form whose box is not ticked ("☐ Tenant is required to maintain renter's insurance").
      const box = /([☐□❑]|\[\s\])\s*[^☐□❑☑☒✔✓\[]{0,120}$/.exec(c.text.slice(0, m.index + m[0].length));
      const ticked = /[☑☒✔✓]|\[[xX✓]\]/.test(c.text);
      // Who a listing clause names, and whether it takes either role.
      const party = kind === 'additionalInsured' || kind === 'interestedParty' ? namedParty(c.text) : undefined;
      const listing =
        kind === 'additionalInsured' || kind === 'interestedParty'
          ? { ...(party && !negated ? { party } : {}), ...(EITHER_ROLE.test(c.text) ? { eitherRole: true } : {}) }
          : null;
      out[kind] = {
        kind,
        required: !negated,
        ...(box && !ticked
          ? { uncertain: 'it is an option of a checkbox form and no box is ticked' }
          : unresolved && !negated
            ? { uncertain: unresolved }
            : {}),
        amount: limits.amount,
        aggregate: limits.aggregate,
        combinedSingleLimit: limits.csl,
        ...(amountSource ? { amountSource } : {}),
        ...listing,
        statutory,
        clause: quote(c),
        page: c.page,
      };
      if (weak) weakCertificate.add(out[kind]!);
    }
  }
  // A residential lease requiring personal liability in the renters clause has both requirements.
  const r = out.renters;
  if (r?.required && !out.liability) {
    const m = /\b(?:personal\s+)?liability\b/i.exec(r.clause);
    const a = m ? amountFor(r.clause, m.index + m[0].length, 'liability').amount : null;
    if (a !== null) out.liability = { kind: 'liability', required: true, amount: a, statutory: false, clause: r.clause, page: r.page };
  }
  return out;
}

/** Read the lease's facts from its pages. */
