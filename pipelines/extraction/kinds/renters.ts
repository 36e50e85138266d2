// Renters declarations (HO-4): personal property, loss of use, liability, medical payments, deductible; no dwelling.
import { declarationCore, propertyFields } from '../declarations.ts';
import { parties as partyFields } from '../parties.ts';
import { score, type KindModule } from './types.ts';

export const renters: KindModule = {
  id: 'renters',
  kind: 'renters',
  label: (text) => (/\bHO[- ]?(?:00 ?)?0?4\b/i.test(text) ? 'Renters (HO-4)' : 'Renters'),
  detect: (text) => {
    let s = score(text, [
      [/renters?|tenants?/i, 4],
      [/HO[- ]?(0?0 ?)?0?4\b|HO-4|contents broad/i, 4],
      [/personal property/i, 1],
    ]);
    // Renters documents mention personal property but not a dwelling limit.
    if (s >= 4 && !/coverage a\b|\bdwelling\b/i.test(text)) s += 4;
    if (/\bdwelling\b/i.test(text)) s -= 2;
    return s;
  },
  extract(pages, emit) {
    propertyFields(pages, declarationCore(pages, emit), emit, true);
    partyFields(pages, emit);
  },
};
