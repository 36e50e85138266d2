// Commercial (business) auto declarations: read like personal auto (limits, vehicles, drivers).
import { autoFields, declarationCore } from '../declarations.ts';
import { parties as partyFields } from '../parties.ts';
import { score, type KindModule } from './types.ts';

export const commercialAuto: KindModule = {
  id: 'commercial_auto',
  kind: 'commercial_auto',
  label: 'Commercial Auto',
  detect: (text) =>
    score(text, [
      [/business auto|commercial auto/i, 6],
      [/combined single limit/i, 1],
    ]),
  extract(pages, emit) {
    autoFields(pages, declarationCore(pages, emit), emit);
    partyFields(pages, emit);
  },
};
