// The lease's parties (landlord, tenant, manager) from the summary's entries, the preamble (between X ("Landlord")
// and Y ("Tenant")) or the cover page a summary points to; a pointer such as "as listed on the cover page" is never a value.
import type { PageText } from '../documents/layout.ts';
import { cleanValue } from '../extraction/normalise.ts';
import { sameParty, type Clause } from './text.ts';
import type { Cited } from './schema.ts';
import type { LabelledEntry } from './lease_entries.ts';

// Case spelled out: the name before the role must start with a capital letter (or a street number: "2430 N. Halsted, LLC").
const ROLE = {
  // A public housing agency's lease calls the landlord the PHA or the Authority.
  landlord: /Landlord|LANDLORD|Lessor|LESSOR|Owner|OWNER|PHA|Authority|AUTHORITY/,
  // A manufactured-home community's lot rental calls its tenant the homeowner.
  tenant: /Tenants?|TENANTS?|Lessees?|LESSEES?|Residents?|RESIDENTS?|Homeowners?|HOMEOWNERS?/,
};
/** A sublease's parties: read only when the lease names no landlord or tenant of its own. */
const SUB_ROLE = {
  landlord: /Sublessor|SUBLESSOR|Sublandlord|SUBLANDLORD|Sub-landlord/,
  tenant: /Subtenants?|SUBTENANTS?|Sublessees?|SUBLESSEES?|Sub-tenant/,
};
/** "X, by and through its agent, Y": the owner is X, the agent (its manager) Y. */
const THROUGH_AGENT = /,?\s+(?:(?:acting\s+)?by\s+and\s+)?through\s+its\s+(?:duly\s+)?(?:authori[sz]ed\s+)?(?:managing\s+|management\s+)?agent,?\s+/i;
export const ROLE_LABEL = {
  landlord:
    /^(?:name of\s+)?(?:landlords?|lessors?|owners?|property owners?)(?:\(s\))?(?:'s|’s)?(?:\s*\/\s*(?:landlord|owner|agent|manager|lessor)(?:'s|’s)?)?(?:\s+names?)?(?:\s+and\s+(?:mailing\s+)?address)?$/i,
  tenant:
    /^(?:name of\s+)?(?:tenants?|lessees?|residents?|roomers?|lodgers?)(?:\(s\))?(?:'s|’s)?(?:\s+names?(?:\(s\))?)?(?:\s+and\s+(?:mailing\s+)?address)?$/i,
  manager:
    /^(?:(?:landlord|owner|lessor)['’]s\s+)?(?:managing agent|property manager|property management(?: company)?|management(?: company)?|manager|agent(?: for (?:the )?(?:landlord|owner|lessor))?)$/i,
};
const SUB_ROLE_LABEL = {
  landlord: /^(?:sublessor|sublandlord|sub-landlord)(?:'s|’s)?(?:\s+name)?$/i,
  tenant: /^(?:subtenants?|sublessees?|sub-tenants?)(?:\(s\))?(?:'s|’s)?(?:\s+names?)?$/i,
};
/** A value that only points elsewhere ("As listed on the cover page", "See Section 1.1") is never a value. */
const POINTER =
  /^(?:as|see)\b|\b(?:as\s+)?(?:listed|set forth|stated|shown|provided|defined|described|identified|named)\s+(?:on|in|above|below)\b|\bcover page\b|^(?:the\s+)?(?:person|party|entity)\s+(?:named|identified)\b/i;
/** A role word alone ("TENANT") is a table heading, not a party. */
const ROLE_WORD = /^(?:the\s+)?(?:landlord|lessor|owner|tenants?|lessees?|residents?|manager|agent|property manager)s?$/i;
/**
 * Words of a sentence, not of a name ("paying an", "Resident shall not allow any utility", "X, referred to as
 * Landlord, and …"). The short ones only in lower case: in capitals they may be part of a name ("ARE-SAN DIEGO NO.
 * 12, LLC").
 */
const NOT_A_NAME =
  /\b(?:so long|provided|shall|agrees?|paying|hereby|hereinafter|referred|Registry of Deeds|recorded)\b|\b(?:Book|Page|Instrument)\s+(?:No\.?\s*)?\d/i;
const NOT_A_NAME_LOWER = /\b(?:will|must|may|not|allow|pay|pays|is|are|be|has|have|which|who|whom|that|this|such|any|each|if|when|under|upon)\b/;
/** "…, a Delaware corporation" after a party's name is its description, not its name. */
const ENTITY_TAIL =
  /,?\s+an?\s+(?:[A-Z][A-Za-z.]*\s+){0,3}(?:limited liability company|corporation|limited partnership|general partnership|partnership|company|trust|banking association|non-?profit corporation|professional corporation|public body|statutory trust|real estate investment trust|LLC|L\.L\.C\.)\b.*$/i;

/** ", 900 Bardstown Road, …", ", at the Premises", ", c/o …", ", P.O. Box …" after a name in a notice-address cell. */
const NOTICE_ADDRESS = /(?<=\S),\s+(?:\d{1,6}\s+[A-Z][A-Za-z]|at\s+the\s+(?:Premises|Property|address)\b|P\.?\s?O\.?\s+Box\b).*$/i;

/** The document's title run into its first sentence: "RESIDENTIAL LEASE AGREEMENT Desert Key …". */
const TITLE_RUN_IN = /^.*\b(?:LEASE|AGREEMENT|CONTRACT)\s+(?=[A-Z][a-z])/;
/** Who signs for a party: "X LLC, by Cascadia Rental Services, Agent", "X TRUST, by Adaeze Okafor, its Trustee". */
const SIGNED_BY =
  /,\s+by\s+(?!and\b)[^,()]{2,60},\s+(?:(?:its|as(?:\s+its)?)\s+)?(?:[A-Z][a-z]+\s+)?(?:trustee|agent|manager|managing member|member|general partner|president|vice president|attorney[- ]in[- ]fact|authori[sz]ed (?:agent|signatory|representative)|executor|executrix|administrator|administratrix|personal representative|guardian|conservator)s?$/i;

function cleanName(s: string): string | undefined {
  // A blank form's underscores are not a name.
  if (/_{3,}/.test(s)) return undefined;
  const v = cleanValue(
    s
      .split(/\s{2,}/)[0]
      .split(THROUGH_AGENT)[0]
      // A summary's "name and notice address" cell: the name ends where the address starts.
      .replace(NOTICE_ADDRESS, '')
      .replace(ENTITY_TAIL, '')
      // "Earl Tidwell and Doris Tidwell, husband and wife"; "X LLC, by Cascadia Rental Services, Agent"; "X TRUST, by
      // Adaeze Okafor, its Trustee": the party, not how it is married or who signs for it.
      .replace(/,\s*(?:husband and wife|wife and husband|spouses|a married couple)\b.*$/i, '')
      .replace(SIGNED_BY, '')
      // "X LLC, c/o Parkchester Realty Mgmt. Corp., 1 Metropolitan Oval": in care of is an address, not the name.
      .replace(/,?\s+c\/o\s.*$/i, '')
      // The next label on the same line: "Samuel Oyelaran. Occupant: Grace Oyelaran".
      .replace(/\.\s+[A-Z][A-Za-z ]{2,30}:.*$/, '')
      .replace(/\s*\((?:the\s+)?["“]?[A-Za-z ]+["”]?\)\s*$/, '')
      .replace(/^(?:is|are)\s+/i, ''),
  );
  // A sentence's full stop is not part of the name ("… and Ana Mendez."); an abbreviation's is ("Inc.").
  if (v && /[a-z]{3}\.$/.test(v) && !/\b(?:Inc|Corp|Ltd|Bros)\.$/.test(v)) return cleanName(v.slice(0, -1));
  if (!v || v.length > 120 || !/[A-Za-z]{2}/.test(v) || POINTER.test(v) || ROLE_WORD.test(v)) return undefined;
  // A street number may start an entity's name, never a person's: "2430 N. Halsted, LLC".
  if (/^\d/.test(v) && !/\b(?:LLC|L\.L\.C|Inc|LP|L\.P|LLP|Corp|Corporation|Company|Trust|Partners(?:hip)?)\b/i.test(v)) return undefined;
  if (NOT_A_NAME.test(v) || NOT_A_NAME_LOWER.test(v) || !/^[A-Z0-9]/.test(v) || v.split(/\s+/).length > 12) return undefined;
  return v;
}

/** A labelled entry of a summary table, a basic-lease-information block or a definitions article. */

export function partyFromEntries(entries: LabelledEntry[], label: RegExp): Cited<string> | null {
  for (const e of entries) {
    if (!label.test(e.label)) continue;
    const v = cleanName(e.value.split('\n')[0]);
    if (v) return { value: v, page: e.page, text: e.text };
  }
  return null;
}

/**
 * The name after the sentence that introduces it: "… entered into by and between Oak Street LLC" gives "Oak Street
 * LLC". Only "and" may join names: after a capitalised word (not a role) it is kept ("Marcus Bell and Tanya Bell").
 */
const ENDS_WITH_ROLE = /\b(?:Landlord|Lessor|Owner|Tenants?|Lessees?|Residents?|Agent|Manager|Sublessor|Subtenant)["”]?\)?,?$/i;
function afterConnector(s: string): string {
  // "Seacliff Property Management, Inc., as agent for the owner, Sunset Terrace LLC": the principal is the party.
  const agentFor =
    /,?\s+(?:as|acting as)\s+(?:(?:managing|authorized|leasing)\s+)?agent\s+(?:for|of|on behalf of)\s+(?:the\s+)?(?:owner|landlord|lessor)?,?\s*(?=[A-Z0-9])/g;
  let principal: RegExpExecArray | null = null;
  for (const m of s.matchAll(agentFor)) principal = m as RegExpExecArray;
  if (principal) s = s.slice((principal.index ?? 0) + principal[0].length);
  let cut = 0;
  for (const m of s.matchAll(/\b(?:between|Between|BETWEEN|and|by|with|are|is|that)\s+(?:the\s+)?(?=[A-Z0-9])/g)) {
    const before = s.slice(0, m.index).trim();
    if (!m[0].startsWith('and') || !/(?:^|\s)[A-Z][\w.’'&-]*$/.test(before) || ENDS_WITH_ROLE.test(before)) cut = (m.index ?? 0) + m[0].length;
  }
  return s.slice(cut);
}

/** "between Oak Street Properties LLC ("Landlord") and John Smith ("Tenant")", "X, as Landlord". */
function partyFromPreamble(all: Clause[], role: RegExp): Cited<string> | null {
  // The defined term in parentheses, with what real leases put beside it: ("Resident," whether one or more),
  // (collectively "Owner"), (hereinafter called "Tenant"), ("we," "us," or "Landlord"); and what OCR makes of a
  // scan's punctuation around it
  // ("Carmen Diaz: (hereinafter referred to as. "Lessee™)").
  const named = new RegExp(
    `([A-Z0-9][A-Za-z0-9.,&'’\\- ]{2,100}?(?:\\s+[dD]\\/[bB]\\/[aA]\\s+[A-Z0-9][A-Za-z0-9.,&'’\\- ]{2,60}?)?)\\s*(?:,\\s*(?:an?|the) [A-Za-z ]{3,60}?,?\\s*)?(?:,\\s*(?:husband and wife|wife and husband|spouses|married)\\s*)?(?:,?\\s+(?:whose (?:street |mailing )?(?:address|office) is|having (?:an|its) (?:office|address|principal (?:office|place of business))(?: at)?|with (?:an|its) (?:office|address) at)\\s+[^()"“”]{5,120}?)?[,:;]?\\s*\\(\\s*(?:(?:hereinafter|herein)(?:\\s+(?:called|referred to as|the))?[.,:]?\\s+)?(?:(?:individually\\s+and\\s+)?(?:collectively|together|jointly(?:\\s+and\\s+severally)?)(?:\\s+(?:called|referred to as))?,?\\s+)?(?:["“][A-Za-z]{2,5}[,"”]{1,3}\\s*)*(?:or\\s+)?(?:the\\s+)?["“'’]{0,2}(?:${role.source})(?:\\(s\\))?[,"”'’™]{0,3}(?:\\s+(?:whether one or more|or\\s+["“][A-Za-z ]+["”]|herein|hereinafter))?\\s*\\)(?!\\s*:)`,
  );
  // "X, as Landlord", and without the comma where the role ends the phrase: "Coastal Keys Realty, LLC as Landlord and …".
  const asRole = new RegExp(
    `([A-Z0-9][A-Za-z0-9.,&'’\\- ]{2,100}?)(?:,\\s+as\\s+(?:the\\s+)?(?:${role.source})\\b|\\s+as\\s+(?:the\\s+)?(?:${role.source})\\b(?=\\s*(?:[,.;(]|and\\b|$)))`,
  );
  // "between Lakeview Rentals Inc., Lessor, and Hannah Ortiz, Lessee": the role set off by commas, no "as".
  const bareRole = new RegExp(
    `\\b(?:between|and)\\s+([A-Z0-9][A-Za-z0-9.,&'’\\- ]{2,100}?),\\s+(?:the\\s+)?["“]?(?:${role.source})["”]?(?=\\s*(?:,|;|\\.|\\(|\\band\\b))`,
  );
  // "the parties are …, Landlord: Bluebonnet Rentals LLC; and Tenant(s): Carlos Mendez": label and name within a
  // sentence (one that starts a line is a summary entry's, read whole by labelledEntries).
  const labelled = new RegExp(
    `(?<=[,;]\\s+|\\band\\s+|\\bare\\s+)(?:${role.source})(?:\\(s\\))?:\\s+([A-Z0-9][A-Za-z0-9.,&'’\\- ]{2,100}?)(?=\\s*;\\s*and\\b|\\s*;?$|\\.?$|\\.\\s|[;,]?\\s+and\\s+(?:the\\s+)?[A-Z][a-z]*(?:\\(s\\))?:)`,
  );
  // An apartment association's form: "between you, the resident(s): Samuel Ortiz and Lily Chen, and us, the owner: X".
  const youUs = new RegExp(
    `\\b(?:you|us),?\\s+(?:the\\s+)?(?:${role.source}|${role.source.toLowerCase()})(?:\\(s\\))?:\\s+([A-Z0-9][A-Za-z0-9.,&'’\\- ]{2,100}?)(?=[,;]?\\s+and\\s+(?:you|us)\\b|\\s*;|\\.\\s|\\.?$)`,
  );
  // The role first, then its name: "The Landlord, Harbor View LLC, and the Tenant, Maya Singh, agree as follows".
  const roleFirst = new RegExp(
    `\\b(?:the|The|THE)\\s+(?:${role.source})(?:\\(s\\))?,\\s+([A-Z0-9][A-Za-z0-9.,&'’\\- ]{2,100}?),\\s+(?=and\\b|agrees?\\b|hereby\\b|(?:do|does)\\s+hereby\\b)`,
  );
  // "the Cairo Housing Authority, referred to as Landlord", "Maple Grove Apartments, L.P., a Texas limited partnership,
  // hereinafter called "Owner"", "Daniel Kim and Priya Shah, hereinafter jointly called "Residents"".
  const referred = new RegExp(
    `([A-Z0-9][A-Za-z0-9.,&'’\\- ]{2,100}?)(?:,\\s+whose (?:street |mailing )?address is\\s+(?:(?!referred to as|called|known as)[^()"“”]){5,120}?)?,?\\s+(?:hereinafter\\s+)?(?:(?:jointly|collectively|individually)(?:\\s+and\\s+(?:severally|collectively))?\\s+)?(?:referred to as|called|known as)\\s+(?:the\\s+)?["“]?(?:${role.source})\\b`,
  );
  // A sentence that names its party first and defines the role after a description: "Jordan Pike, the tenant of
  // record under a lease with …, is called the Sublessor in this agreement."
  const calledLater = new RegExp(
    `^(?:[A-Z][A-Z()/&' -]{3,60}\\s+(?=[A-Z][a-z]))?([A-Z][\\w.'’-]+(?:\\s+[A-Z][\\w.'’-]+){0,4})(?:,[^.]{0,200}?,)?\\s+(?:is|are)\\s+(?:hereinafter\\s+)?(?:called|referred to as|known as)\\s+(?:the\\s+)?["“]?(?:${role.source})\\b`,
  );
  // A plain-language lease's own words defined: ""I" and "me" mean Wendell P. Haas and "you" means Bighorn Barber Co. LLC".
  const pronoun = role.test('Landlord') || role.test('Owner') ? 'I|me|we|us|our' : 'you|your';
  const pronouns = new RegExp(
    `["“](?:${pronoun})["”](?:,?\\s+(?:and|or)\\s+["“](?:${pronoun})["”])*\\s+means?\\s+([A-Z][A-Za-z0-9.,&'’\\- ]{2,80}?)(?=\\s+and\\s+["“]|[.;]?$)`,
  );
  for (const c of all.slice(0, 80)) {
    for (const re of [named, asRole, referred, bareRole, labelled, youUs, roleFirst, calledLater, pronouns]) {
      const m = re.exec(c.text);
      if (!m) continue;
      // A list item's letter after a colon is no initial: "PARTIES AND PROPERTY: A. Sierra Vista Rentals, Inc. (\"Landlord\")".
      const listed = /:\s*$/.test(c.text.slice(0, m.index)) ? m[1].replace(/^[A-H][.)]\s+(?=[A-Z][a-z])/, '') : m[1];
      const v = cleanName(
        afterConnector(listed.replace(SIGNED_BY, ''))
          .replace(/^(?:by and between|between|and)\s+/i, '')
          .replace(/^(?:are|is)\s+(?:the\s+)?/i, '')
          .replace(/^the\s+(?=[A-Z])/, '')
          // The document's title run into its first sentence: "RESIDENTIAL LEASE AGREEMENT Desert Key … ("Agent")".
          .replace(TITLE_RUN_IN, '')
          .replace(/\s+(?:LEASE|AGREEMENT)\b.*$/, ''),
      );
      if (v && !/^(this|the|said)\b/i.test(v)) return { value: v, page: c.page, text: c.text.slice(0, 400) };
    }
  }
  return null;
}

/** The cover page's "BDDC, INC., / AS LANDLORD, AND / BLUCORA, INC., / AS TENANT": the lines above each role. */
function partyFromCover(pages: PageText[], role: RegExp): Cited<string> | null {
  const roleLine = new RegExp(`^\\s*[,(]?\\s*(?:as\\s+)?(?:the\\s+)?["“]?(?:${role.source})["”]?\\s*[,)]?\\s*(?:,?\\s*and)?\\s*,?\\s*$`, 'i');
  for (const p of pages.slice(0, 2)) {
    const lines = p.lines.map((l) => l.text).filter((t) => t.trim() !== '');
    for (let i = 1; i < lines.length; i++) {
      if (!roleLine.test(lines[i])) continue;
      const name: string[] = [];
      for (let j = i - 1; j >= 0 && name.length < 3; j--) {
        const t = lines[j].trim();
        if (
          /^(?:by\s+and\s+)?between$|^and$|^by$|LEASE|AGREEMENT|^(?:dated|exhibit)\b/i.test(t) ||
          roleLine.test(t) ||
          /^\s*(?:as\s+)?(?:landlord|tenant|lessor|lessee)\b/i.test(t)
        )
          break;
        name.unshift(t);
      }
      const v = cleanName(name.join(' ').replace(/,\s*$/, ''));
      if (v) return { value: v, page: p.page, text: name.join('\n') };
    }
  }
  return null;
}

/** The party as the lease first states it: the earliest of the cover, the preamble and the summary entries. */
export function party(pages: PageText[], all: Clause[], entries: LabelledEntry[], which: 'landlord' | 'tenant'): Cited<string> | null {
  let found = [partyFromPreamble(all, ROLE[which]), partyFromEntries(entries, ROLE_LABEL[which]), partyFromCover(pages, ROLE[which])].filter(
    (c): c is Cited<string> => !!c,
  );
  // A sublease's own landlord and tenant are its sublessor and subtenant.
  if (!found.length) found = [partyFromPreamble(all, SUB_ROLE[which]), partyFromEntries(entries, SUB_ROLE_LABEL[which])].filter((c): c is Cited<string> => !!c);
  const first = found.sort((a, b) => a.page - b.page)[0];
  if (!first) return null;
  // A cover in capitals ("BDDC, INC.") names the party the preamble writes in normal case: report that spelling.
  const spelled =
    first.value === first.value.toUpperCase() ? found.find((c) => c.value !== c.value.toUpperCase() && sameParty(c.value, first.value)) : undefined;
  return spelled ? { ...first, value: spelled.value } : first;
}

const MANAGER_ROLE = /Managing Agent|Agent|AGENT|Property Manager|Manager|MANAGER|Management Company/;

/**
 * The landlord's manager or agent: a summary entry ("Management: …"), a defined term ("X ("Agent")") or the
 * preamble's "Owner, by and through its agent, X".
 */
export function manager(all: Clause[], entries: LabelledEntry[]): Cited<string> | null {
  const entry = partyFromEntries(entries, ROLE_LABEL.manager);
  if (entry) return entry;
  const through = new RegExp(`${THROUGH_AGENT.source}([A-Z0-9][A-Za-z0-9.,&'’\\- ]{2,100}?)(?=\\s*\\(|,?\\s+(?:as|and)\\s|\\s*[;:]|\\.\\s|\\.?$)`, 'i');
  for (const c of all.slice(0, 80)) {
    const m = through.exec(c.text);
    const v = m && cleanName(m[1]);
    if (v) return { value: v, page: c.page, text: c.text.slice(0, 400) };
  }
  // "Seacliff Property Management, Inc., as agent for the owner, Sunset Terrace LLC": the agent before its principal.
  const agentFor = /([A-Z0-9][A-Za-z0-9.,&'’\- ]{2,100}?),?\s+(?:as|acting as)\s+(?:(?:managing|authorized|leasing)\s+)?agent\s+(?:for|of|on behalf of)\b/;
  for (const c of all.slice(0, 80)) {
    const m = agentFor.exec(c.text);
    // Not the document's title run into the sentence ("RESIDENTIAL LEASE AGREEMENT Keystone …").
    const v = m && cleanName(afterConnector(m[1]).replace(TITLE_RUN_IN, ''));
    if (v) return { value: v, page: c.page, text: c.text.slice(0, 400) };
  }
  // "Owner's management company is Prime Residential Management LLC", "the Property is managed by X".
  const stated = /\b(?:management company|managing agent|property manager|manager|agent)\s+(?:is|shall be)\s+|\bmanaged by\s+/i;
  for (const c of all.slice(0, 80)) {
    const m = stated.exec(c.text);
    const v = m && cleanName(c.text.slice(m.index + m[0].length).replace(/[.;,]?\s*(?:\(.*)?$/, ''));
    if (v) return { value: v, page: c.page, text: c.text.slice(0, 400) };
  }
  const preamble = partyFromPreamble(all, MANAGER_ROLE);
  if (preamble) return preamble;
  // "naming Owner and its managing agent, Beacon Hill Management Co., as additional insureds": the agent named in passing.
  const appositive =
    /\b(?:its|(?:Owner|Landlord|Lessor)['’]s)\s+(?:managing agent|property manager|management company|agent),\s+([A-Z][A-Za-z0-9.&'’\- ]{2,80}?),/;
  for (const c of all) {
    const m = appositive.exec(c.text);
    const v = m && cleanName(m[1]);
    if (v) return { value: v, page: c.page, text: c.text.slice(0, 400) };
  }
  return null;
}
