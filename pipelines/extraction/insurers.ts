// A built-in list of US insurers: the groups' brands (as printed in logos and letterheads) and common underwriting
// companies' legal names (NAIC style). Used to decide that a line names a carrier: a brand in a header, a legal
// name standing alone, a run-together name to re-space. The names are data (data/insurers.json); extend it freely.
import data from './data/insurers.json' with { type: 'json' };

/** Brands and group names, as a reader would recognise them on a page. */
export const INSURER_BRANDS: readonly string[] = data.brands;

/** Underwriting companies' legal names as printed on declarations and certificates (a sample of the common ones). */
export const INSURER_LEGAL_NAMES: readonly string[] = data.legal_names;

/** Compared as a reviewer would: case, punctuation, "&"/"and", "Co."/"Company", "Corp."/"Corporation" do not matter. */
const norm = (s: string) =>
  s
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[^a-z0-9]+/g, ' ')
    .replace(/\bco\b/g, 'company')
    .replace(/\bcorp\b/g, 'corporation')
    .trim()
    .replace(/^the /, '');
const LEGAL = new Set(INSURER_LEGAL_NAMES.map(norm));

/** Whether a text is (exactly, as a reviewer compares) one of the built-in legal names. */
export function isKnownInsurer(name: string): boolean {
  return LEGAL.has(norm(name));
}

/** Words of insurers' names besides those of the lists above (lowercase). */
const NAME_WORDS: readonly string[] = data.name_words;
/** Thin glyphs a low-resolution scan can lose altogether (one pixel wide or less). */
const THIN = /[il1I|]/g;
/** A text without its thin glyphs (how a restored name is found on its page, see restoreThinGlyphs). */
export const withoutThinGlyphs = (s: string): string => s.replace(THIN, '');
const VOCAB = new Set([...INSURER_BRANDS, ...INSURER_LEGAL_NAMES].flatMap((n) => n.toLowerCase().split(/[^a-z]+/)).filter((w) => w.length >= 3));
for (const w of NAME_WORDS) VOCAB.add(w);
/** Vocabulary words by their spelling without thin glyphs, for the ones that have some; ambiguous keys map to null. */
const BY_THIN_LESS = new Map<string, string | null>();
for (const w of VOCAB) {
  const k = w.replace(THIN, '');
  if (k === w || k.length < 3) continue;
  BY_THIN_LESS.set(k, BY_THIN_LESS.has(k) && BY_THIN_LESS.get(k) !== w ? null : w);
}
const withCaseOf = (model: string, word: string) =>
  model === model.toUpperCase() ? word.toUpperCase() : /^[A-Z]/.test(model) ? word[0].toUpperCase() + word.slice(1) : word;

/**
 * An insurer's name as OCR read it from a low-resolution scan that lost its thin glyphs ("Casua ty", "Natona",
 * "Fre"), with those words restored from the vocabulary of insurers' names ("Casualty", "National", "Fire"): a
 * word, or two words the lost glyph split, is replaced only when it is not a known word itself and exactly one
 * known word reads the same as it once the i, l and 1 of both are taken out. Anything else is left as read.
 */
export function restoreThinGlyphs(name: string): string {
  const tokens = name.split(/\s+/).filter(Boolean);
  const known = (t: string) => VOCAB.has(t.toLowerCase().replace(/[^a-z]/g, '')) || !/^[A-Za-z]+$/.test(t);
  // The glyphs left of the word may include some thin ones ("Nationa"): compare both without any.
  const restored = (t: string) => {
    const k = t.toLowerCase().replace(THIN, '');
    return /^[A-Za-z]+$/.test(t) && k.length >= 3 ? (BY_THIN_LESS.get(k) ?? null) : null;
  };
  const out: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    const next = tokens[i + 1];
    // Two pieces of one word ("Casua ty"), neither a word of its own.
    if (next !== undefined && !known(t) && !known(next)) {
      const joined = restored(t + next);
      if (joined) {
        out.push(withCaseOf(t, joined));
        i++;
        continue;
      }
    }
    const one = known(t) ? null : restored(t);
    out.push(one ? withCaseOf(t, one) : t);
  }
  return out.join(' ');
}
