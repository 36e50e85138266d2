// Commercial umbrella / excess liability declarations: the common core.
import { declarationCore, partyFields } from '../rules.ts';
import { policyTypeLabels } from '../schema.ts';
import { score, type KindModule } from './types.ts';

export const commercialUmbrella: KindModule = {
  id: 'commercial_umbrella',
  kind: 'commercial_umbrella',
  label: policyTypeLabels.commercial_umbrella,
  detect: (text) => score(text, [[/commercial umbrella|commercial excess|excess liability/i, 7]]),
  extract(pages, emit) {
    declarationCore(pages, emit);
    partyFields(pages, emit);
  },
};
