// Commercial umbrella / excess liability declarations: the common core.
import { declarationCore } from '../declarations.ts';
import { parties as partyFields } from '../parties.ts';
import { score, type KindModule } from './types.ts';

export const commercialUmbrella: KindModule = {
  id: 'commercial_umbrella',
  kind: 'commercial_umbrella',
  label: 'Commercial Umbrella',
  detect: (text) => score(text, [[/commercial umbrella|commercial excess|excess liability/i, 7]]),
  extract(pages, emit) {
    declarationCore(pages, emit);
    partyFields(pages, emit);
  },
};
