// The lease's parties (landlord, tenant, manager) from the summary's entries, the preamble (between X ("Landlord")
// and Y ("Tenant")) or the cover page a summary points to; a pointer such as "as listed on the cover page" is never a value.
import type { PageText } from '../documents/layout.ts';
import { cleanValue } from '../extraction/normalise.ts';
import { sameParty, type Clause } from './text.ts';
import type { Cited } from './schema.ts';
import type { LabelledEntry } from './lease_entries.ts';

// Case spelled out: the name before the role must start with a capital letter (or a street number: "2430 N. Halsted, LLC").
const ROLE = {
  landlord: /Landlord|LANDLORD|Lessor|LESSOR|Owner|OWNER/,
  tenant: /Tenants?|TENANTS?|Lessees?|LESSEES?|Residents?|RESIDENTS?/,
};
export const ROLE_LABEL = {
  landlord: /^(?:name of\s+)?(?:landlord|lessor|owner|owner\/landlord|property owner)(?:'s|’s)?(?:\s+name)?$/i,
  tenant: /^(?:name of\s+)?(?:tenants?|lessees?|residents?)(?:\(s\))?(?:'s|’s)?(?:\s+names?)?$/i,
  manager: /^(?:managing agent|property manager|management company|manager|agent for (?:the )?landlord)$/i,
};
/** A value that only points elsewhere ("As listed on the cover page", "See Section 1.1") is never a value. */
const POINTER =
  /^(?:as|see)\b|\b(?:as\s+)?(?:listed|set forth|stated|shown|provided|defined|described|identified|named)\s+(?:on|in|above|below)\b|\bcover page\b|^(?:the\s+)?(?:person|party|entity)\s+(?:named|identified)\b/i;
/** A role word alone ("TENANT") is a table heading, not a party. */
const ROLE_WORD = /^(?:the\s+)?(?:landlord|lessor|owner|tenants?|lessees?|residents?|manager|agent|property manager)s?$/i;
/** Words of a sentence, not of a name ("paying an", "Resident shall not allow any utility"). */
const NOT_A_NAME =
  /\b(?:so long|provided|shall|will|must|may|not|allow|agrees?|pay|paying|pays|is|are|be|has|have|hereby|which|who|whom|that|this|such|any|each|if|when|under|upon)\b/i;
/** "…, a Delaware corporation" after a party's name is its description, not its name. */
const ENTITY_TAIL =
  /,?\s+an?\s+(?:[A-Z][A-Za-z.]*\s+){0,3}(?:limited liability company|corporation|limited partnership|general partnership|partnership|company|trust|banking association|non-?profit corporation|professional corporation|public body|statutory trust|real estate investment trust|LLC|L\.L\.C\.)\b.*$/i;

function cleanName(s: string): string | undefined {
  // A blank form's underscores are not a name.
  if (/_{3,}/.test(s)) return undefined;
  const v = cleanValue(
    s
      .split(/\s{2,}/)[0]
      .replace(ENTITY_TAIL, '')
      .replace(/\s*\((?:the\s+)?["“]?[A-Za-z ]+["”]?\)\s*$/, '')
      .replace(/^(?:is|are)\s+/i, ''),
  );
  if (!v || v.length > 120 || !/[A-Za-z]{2}/.test(v) || POINTER.test(v) || ROLE_WORD.test(v)) return undefined;
  // A street number may start an entity's name, never a person's: "2430 N. Halsted, LLC".
  if (/^\d/.test(v) && !/\b(?:LLC|L\.L\.C|Inc|LP|L\.P|LLP|Corp|Corporation|Company|Trust|Partners(?:hip)?)\b/i.test(v)) return undefined;
  if (NOT_A_NAME.test(v) || !/^[A-Z0-9]/.test(v) || v.split(/\s+/).length > 12) return undefined;
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

/** "between Oak Street Properties LLC ("Landlord") and John Smith ("Tenant")", "X, as Landlord". */
function partyFromPreamble(all: Clause[], role: RegExp): Cited<string> | null {
  const named = new RegExp(
    `([A-Z0-9][A-Za-z0-9.,&'’\\- ]{2,100}?)\\s*(?:,\\s*an? [A-Za-z ]{3,60}?,?\\s*)?,?\\s*\\(\\s*(?:(?:hereinafter|herein)\\s+(?:called|referred to as|the)\\s+)?(?:the\\s+)?["“']{0,2}(?:${role.source})["”']{0,2}\\s*\\)`,
  );
  const asRole = new RegExp(`([A-Z0-9][A-Za-z0-9.,&'’\\- ]{2,100}?),\\s+as\\s+(?:the\\s+)?(?:${role.source})\\b`);
  // "the Cairo Housing Authority, referred to as Landlord".
  const referred = new RegExp(
    `([A-Z0-9][A-Za-z0-9.&'’\\- ]{2,100}?),?\\s+(?:hereinafter\\s+)?(?:referred to|called|known)\\s+as\\s+(?:the\\s+)?["“]?(?:${role.source})\\b`,
  );
  for (const c of all.slice(0, 80)) {
    for (const re of [named, asRole, referred]) {
      const m = re.exec(c.text);
      if (!m) continue;
      const v = cleanName(
        m[1]
          .replace(/^.*\b(?:between|and|by|with|are|is)\s+(?:the\s+)?(?=[A-Z0-9])/, '')
          .replace(/^(?:by and between|between|and)\s+/i, '')
          .replace(/^(?:are|is)\s+(?:the\s+)?/i, '')
          .replace(/^the\s+(?=[A-Z])/, '')
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
  const found = [partyFromPreamble(all, ROLE[which]), partyFromEntries(entries, ROLE_LABEL[which]), partyFromCover(pages, ROLE[which])].filter(
    (c): c is Cited<string> => !!c,
  );
  const first = found.sort((a, b) => a.page - b.page)[0];
  if (!first) return null;
  // A cover in capitals ("BDDC, INC.") names the party the preamble writes in normal case: report that spelling.
  const spelled =
    first.value === first.value.toUpperCase() ? found.find((c) => c.value !== c.value.toUpperCase() && sameParty(c.value, first.value)) : undefined;
  return spelled ? { ...first, value: spelled.value } : first;
}
