// Commercial property declarations: the common core.
import { declarationCore } from '../declarations.ts';
import { parties as partyFields } from '../parties.ts';
import { score, type KindModule } from './types.ts';

export const commercialProperty: KindModule = {
  id: 'commercial_property',
  kind: 'commercial_property',
  label: 'Commercial Property',
  detect: (text) =>
    score(text, [
      [/commercial property/i, 6],
      [/business income/i, 1],
    ]),
  extract(pages, emit) {
    declarationCore(pages, emit);
    partyFields(pages, emit);
  },
};
