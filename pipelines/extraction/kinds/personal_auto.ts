// Personal auto declarations: bodily injury / property damage limits, vehicles (VIN, year, make, model), drivers.
import { autoFields, declarationCore } from '../declarations.ts';
import { parties as partyFields } from '../parties.ts';
import { score, type KindModule } from './types.ts';

export const personalAuto: KindModule = {
  id: 'personal_auto',
  kind: 'personal_auto',
  label: 'Personal Auto',
  detect: (text) =>
    score(text, [
      [/\b[A-HJ-NPR-Z0-9]{17}\b/, 2],
      [/bodily injury/i, 2],
      [/collision/i, 2],
      [/\bvehicles?\b/i, 1],
      [/personal auto|auto policy|automobile policy/i, 3],
      [/drivers?\b/i, 1],
    ]),
  extract(pages, emit) {
    autoFields(pages, declarationCore(pages, emit), emit);
    partyFields(pages, emit);
  },
};
