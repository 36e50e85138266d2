// Businessowners (BOP) declarations: the common core and the CGL each-occurrence limit.
import { declarationCore, liabilityFields } from '../declarations.ts';
import { parties as partyFields } from '../parties.ts';
import { score, type KindModule } from './types.ts';

export const businessowners: KindModule = {
  id: 'businessowners',
  kind: 'businessowners',
  label: 'Businessowners (BOP)',
  detect: (text) =>
    score(text, [
      [/businessowners?|business owners?|\bBOP\b/i, 6],
      [/business personal property/i, 2],
      [/securebusiness|business\s+policy\s+declarations|business\s+package/i, 5],
    ]),
  extract(pages, emit) {
    liabilityFields(pages, declarationCore(pages, emit), emit);
    partyFields(pages, emit);
  },
};
