// The premises' address: street, suite or unit, city, state and ZIP, from the premises definition or the summary.
import { oneEditApart } from '../extraction/normalise.ts';
import type { Clause } from './text.ts';
import type { Cited } from './schema.ts';
import { PREMISES_LABEL, type LabelledEntry } from './lease_entries.ts';

const STATE_NAMES =
  'Alabama|Alaska|Arizona|Arkansas|California|Colorado|Connecticut|Delaware|District of Columbia|Florida|Georgia|Hawaii|Idaho|Illinois|Indiana|Iowa|Kansas|Kentucky|Louisiana|Maine|Maryland|Massachusetts|Michigan|Minnesota|Mississippi|Missouri|Montana|Nebraska|Nevada|New Hampshire|New Jersey|New Mexico|New York|North Carolina|North Dakota|Ohio|Oklahoma|Oregon|Pennsylvania|Rhode Island|South Carolina|South Dakota|Tennessee|Texas|Utah|Vermont|Virginia|Washington|West Virginia|Wisconsin|Wyoming';
const STREET_NO = String.raw`(?:\d{1,6}[A-Z]?(?:-\d{1,5}|\s+1\/2)?|One|Two|Three|Four|Five|Six|Seven|Eight|Nine|Ten|Eleven|Twelve)`;
const STREET_SUFFIX = String.raw`(?:Street|St\.?|Avenue|Ave\.?|Boulevard|Blvd\.?|Road|Rd\.?|Drive|Dr\.?|Lane|Ln\.?|Way|Court|Ct\.?|Place|Pl\.?|Parkway|Pkwy\.?|Circle|Cir\.?|Plaza|Square|Sq\.?|Terrace|Ter\.?|Trail|Trl\.?|Center|Centre|Pike|Turnpike|Highway(?!\s*\d)|Hwy\.?(?!\s*\d)|Freeway|Expressway|Row|Wharf|Loop|Alley)`;
const DIRECTION = String.raw`(?:N|S|E|W|NE|NW|SE|SW|North|South|East|West)\.?`;
const HIGHWAY = String.raw`(?:${DIRECTION}\s+)?(?:(?:State|County|U\.?S\.?)\s+(?:Route|Road|Highway)|Highway|Hwy\.?|Route|Rte\.?|State Road|U\.?S\.?|SR|CR|FM)\s*\d{1,4}(?:\s+${DIRECTION}(?![A-Za-z]))?`;
const STREET = String.raw`${STREET_NO}\s+(?:(?:Avenue|Ave\.?)\s+[A-Z](?![A-Za-z])|(?:${DIRECTION}\s+)?(?:[A-Z0-9][A-Za-z0-9'’.-]*\s+){0,4}${STREET_SUFFIX}(?:\s+${DIRECTION}(?![A-Za-z]))?(?![A-Za-z])|${HIGHWAY})`;
// A retail lease's "Shop Space No. 12", "Store No. 5": only with a number (a "Store Hours" heading is no unit).
const UNIT = String.raw`(?:(?:Rear|Front|Upper|Lower|Garden|Basement)\s+(?:Unit|Flat|Apartment|Apt\.?|Level|House)|(?:Suite|Ste\.?|Unit|Apartment|Apt\.?|Building|Bldg\.?|Townhouse|Townhome)\s*(?:No\.?\s*|#\s*)?[A-Z0-9][A-Z0-9-]*|(?:(?:Shop|Store|Retail)\s+)?Space\s*(?:No\.?\s*|#\s*)?\d[A-Z0-9-]*|Store\s*(?:No\.?\s*|#\s*)\d[A-Z0-9-]*|#\s*\d[A-Z0-9-]*)(?:(?:\s*,\s*(?:and\s+)?|\s+and\s+)\d[A-Z0-9-]*)*`;
const CITY_STATE = String.raw`([A-Z][A-Za-z.'’-]+(?:\s+[A-Z][A-Za-z.'’-]+){0,2}),?\s+(${STATE_NAMES}|[A-Z]{2})(?:,?\s+(\d{5}(?:-\d{4})?))?`;
/** A floor right after the street ("48 Elm Street, Second Floor, Worcester"): the premises' unit there. */
const FLOOR = String.raw`(?:(?:First|Second|Third|Fourth|Fifth|Sixth|Seventh|Eighth|Ninth|Tenth|Ground|Top|\d{1,2}(?:st|nd|rd|th))\s+Floor)`;
// The city may follow "in" ("9800 Research Forest Drive in The Woodlands, Texas, 77380").
const ADDRESS = new RegExp(String.raw`(${STREET})((?:,?\s*(?:${UNIT}|${FLOOR}))*)(?:[,;]?\s+(?:in\s+)?${CITY_STATE})?`, 'd');
/** Words in capitals as words in title case ("214 MAIN STREET, NAPA" as "214 Main Street, Napa"), the same length; two-letter codes kept. */
const titleCased = (t: string) => t.replace(/\b[A-Z][A-Z'’.-]{2,}\b/g, (w) => w[0] + w.slice(1).toLowerCase());
/** After the street, a city, a word that is not a state's name and a ZIP: a scan's state name OCR misread ("Tllinois"). */
const CITY_WORD_ZIP = /^[,;]?\s+([A-Z][A-Za-z.'’-]+(?:\s+[A-Z][A-Za-z.'’-]+){0,2}),?\s+([A-Z][A-Za-z]{3,13}(?:\s+[A-Z][a-z]{3,})?)\s+(\d{5}(?:-\d{4})?)\b/;
const STATES = STATE_NAMES.split('|');
/** The standard industrial lease's "…, located in the City of Reno, County of Washoe, State of Nevada, with zip code 89511". */
const CITY_OF = new RegExp(
  String.raw`^,?\s*(?:located\s+)?in\s+the\s+City\s+of\s+([A-Z][A-Za-z.'’ -]{1,40}?),\s*County\s+of\s+[A-Z][A-Za-z.'’ -]{1,40}?,\s*(?:and\s+)?State\s+of\s+(${STATE_NAMES})(?:,?\s*(?:with\s+)?zip\s*code\s+(\d{5}(?:-\d{4})?))?`,
);

/** Whether `word` is a state's name with one letter misread, dropped or added (a scan's OCR), by the lengths it can be. */
function nearState(word: string): boolean {
  const w = word.toLowerCase();
  return STATES.some((st) => st.length >= 5 && oneEditApart(st.toLowerCase(), w));
}
const UNIT_ALONE = new RegExp(UNIT);

/**
 * One line "street, unit, city, state ZIP" from a text holding a street address (the unit may stand elsewhere in it,
 * or in `lead`, the words of the same sentence before the text: "leases to Resident Unit No. 407 of the community
 * known as …, located at 5120 …").
 */
function addressIn(text: string, lead = ''): string | null {
  // A blank form's unit ("Apt #________") is no unit, and must not hide the city, state and ZIP after it.
  // What a parenthesis says of a unit is no part of the address: "Unit LL (lower level / basement apartment), Cleveland".
  const t = text
    .replace(/\s+/g, ' ')
    .replace(/\s*\([^()\d"“”]{2,60}\)(?=,)/g, '')
    .replace(/,?\s*(?:Apt\.?|Apartment|Unit|Suite|Ste\.?|No\.?|#)\s*(?:No\.?\s*)?#?\s*_{2,}/gi, '');
  // An address in capitals is matched in title case and read back as the page writes it.
  const folded = titleCased(t);
  const m = ADDRESS.exec(folded);
  if (!m) return null;
  if (folded !== t) for (let k = 1; k < m.length; k++) if (m.indices?.[k]) m[k] = t.slice(m.indices[k]![0], m.indices[k]![1]);
  // The city, state and ZIP as "in the City of …, County of …, State of …", or as a scan's OCR spelled them when
  // only the state's name is off by a letter.
  if (!m[3]) {
    const rest = t.slice(m.index + m[0].length);
    const cityOf = CITY_OF.exec(rest);
    const near = CITY_WORD_ZIP.exec(rest);
    if (cityOf) [m[3], m[4], m[5]] = [cityOf[1], cityOf[2], cityOf[3]];
    else if (near && nearState(near[2])) [m[3], m[4], m[5]] = [near[1], near[2], near[3]];
  }
  let unit =
    m[2].replace(/^,?\s*/, '') ||
    UNIT_ALONE.exec(t.slice(0, m.index))?.[0] ||
    UNIT_ALONE.exec(t.slice(m.index + m[0].length))?.[0] ||
    UNIT_ALONE.exec(lead.split(/[.;:]\s+(?=[A-Z])/).pop() ?? '')?.[0] ||
    '';
  // "the space known as Suite A … within the building located at 1325 Hwy 42 S., Building B": both units.
  const before = m[2] ? UNIT_ALONE.exec(t.slice(0, m.index))?.[0] : undefined;
  if (before && unitKind(before) !== unitKind(unit)) unit = `${unit}, ${before}`;
  const parts = [m[1].replace(/,$/, ''), unit, m[3] ?? ''].filter(Boolean);
  const stateZip = [m[4], m[5]].filter(Boolean).join(' ');
  return [...parts, stateZip].filter(Boolean).join(', ');
}

const unitKind = (u: string) => (/^(?:building|bldg)/i.test(u) ? 'building' : 'unit');

const PREMISES_CLAUSE =
  /\b(?:located at|known as|known and numbered as|(?:commonly\s+)?described as|designated as|street address is|(?:known by the )?street address of|situated(?: at)?|address of which is|(?:premises|property|lot|unit|apartment|dwelling|home|house|residence|space)(?:\s+(?:No\.?\s*|#\s*)?[A-Z0-9-]+)?(?:\s+of\s+the\s+[A-Z][a-z]+)?,?\s+whose (?:street )?address is|(?:premises|apartment|apt\.?|suite|residence|house|home|dwelling(?: unit)?|unit|property|real property|building)(?:\s+(?:(?:No\.?|#)\s*)?[A-Z0-9-]*\d[A-Z0-9-]*)? at|premises (?:is|are|shall be)(?=\s+\d)|(?:leases?|rents?|lets?)\s+to\s+(?:the\s+)?(?:Tenants?|Residents?|Lessees?)\s+[^.]{0,100}?\sat(?=\s+\d)|^(?:\d{1,2}(?:\.\d{1,2})*\s+)?(?:the\s+)?(?:leased\s+|demised\s+)?premises(?=[.:](?:\s|$)))\b/i;

/** A summary's own entry for the unit ("Unit: #612", "Apartment No.: 4B"). */
const UNIT_LABEL = /^(?:unit|apartment|apt\.?|suite)(?:\s*(?:no\.?|number|#))?$/i;

export function propertyAddress(all: Clause[], entries: LabelledEntry[]): Cited<string> | null {
  // The premises or building entry of the summary, then the premises definition in the clauses, earliest first.
  const found: Cited<string>[] = [];
  for (const e of entries) {
    if (!PREMISES_LABEL.test(e.label)) continue;
    let v = addressIn(e.value);
    if (!v) continue;
    // "Building: 1825 South Grant Street …" with "Premises: … commonly known as Suite 725" beside it on the page.
    if (!UNIT_ALONE.test(v)) {
      const unit = entries
        .filter((x) => x !== e && x.page === e.page && (/^(?:the\s+)?(?:leased\s+)?premises$/i.test(x.label) || UNIT_LABEL.test(x.label)))
        .map(
          (x) =>
            UNIT_ALONE.exec(x.value.replace(/\s+/g, ' '))?.[0] ??
            (UNIT_LABEL.test(x.label) && /^[A-Z0-9-]{1,6}$/.test(x.value.trim())
              ? `${x.label.replace(/\s*(?:no\.?|number|#)$/i, '')} ${x.value.trim()}`
              : undefined),
        )
        .find(Boolean);
      if (unit) {
        const [street, ...rest] = v.split(', ');
        v = [street, unit, ...rest].join(', ');
      }
    }
    found.push({ value: v, page: e.page, text: e.text });
    break;
  }
  for (const [k, c] of all.entries()) {
    if (!PREMISES_CLAUSE.test(c.text)) continue;
    const at = PREMISES_CLAUSE.exec(c.text)!.index;
    // A scan's OCR may read the comma before the city as a semicolon, which ends the clause: the address runs on.
    const next = all[k + 1];
    // So may a heading of its own ("1.01 Premises.") before the sentence that states them.
    const runsOn = /;$/.test(c.text) || /^(?:\d{1,2}(?:\.\d{1,2})*\s+)?(?:the\s+)?(?:leased\s+|demised\s+)?premises[.:]$/i.test(c.text);
    const text = runsOn && next && next.para === c.para && next.page === c.page ? `${c.text} ${next.text}` : c.text;
    const v = addressIn(text.slice(at), c.text.slice(0, at).replace(/\s+/g, ' '));
    if (v) {
      found.push({ value: v, page: c.page, text: text.slice(0, 400) });
      break;
    }
  }
  // The earliest; of two statements of the same street on one page the fuller (a ZIP or a unit the other lacks),
  // and of two streets on one page the summary's ("Building: 1825 …", not the project's "1875 and 1855 …").
  const sameStreet = (a: string, b: string) => a.split(' ')[0] === b.split(' ')[0];
  return (
    found
      .map((f, k) => ({ f, k }))
      .sort((a, b) => a.f.page - b.f.page || (sameStreet(a.f.value, b.f.value) ? b.f.value.length - a.f.value.length : a.k - b.k))[0]?.f ?? null
  );
}
