// Commercial general liability declarations: the common core and the each-occurrence limit.
import { declarationCore, liabilityFields } from '../declarations.ts';
import { parties as partyFields } from '../parties.ts';
import { score, type KindModule } from './types.ts';

export const commercialGeneralLiability: KindModule = {
  id: 'commercial_general_liability',
  kind: 'commercial_general_liability',
  label: 'Commercial General Liability',
  detect: (text) =>
    score(text, [
      [/commercial general liability/i, 5],
      [/general aggregate/i, 2],
      [/each occurrence/i, 1],
      [/products[- ]completed/i, 2],
    ]),
  extract(pages, emit) {
    liabilityFields(pages, declarationCore(pages, emit), emit);
    partyFields(pages, emit);
  },
};
