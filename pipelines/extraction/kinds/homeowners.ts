// Homeowners declarations (HO-3 and similar): Coverage A–F limits, the all-perils deductible, residence premises.
import { declarationCore, propertyFields } from '../declarations.ts';
import { parties as partyFields } from '../parties.ts';
import { score, type KindModule } from './types.ts';

export const homeowners: KindModule = {
  id: 'homeowners',
  kind: 'homeowners',
  label: (text) => (/\bHO[- ]?(?:00 ?)?0?3\b|special form/i.test(text) ? 'Homeowners (HO-3)' : 'Homeowners'),
  detect: (text) =>
    score(text, [
      [/homeowners?/i, 4],
      [/\bdwelling\b/i, 3],
      [/HO[- ]?(0?0 ?)?0?3\b|HO-3|special form/i, 3],
      [/other structures/i, 2],
      [/coverage a\b/i, 2],
    ]),
  extract(pages, emit) {
    propertyFields(pages, declarationCore(pages, emit), emit, false);
    partyFields(pages, emit);
  },
};
