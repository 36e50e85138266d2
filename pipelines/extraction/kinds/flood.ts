// Flood (NFIP and private) declarations: the common core.
import { declarationCore, partyFields } from '../rules.ts';
import { policyTypeLabels } from '../schema.ts';
import { score, type KindModule } from './types.ts';

export const flood: KindModule = {
  id: 'flood',
  kind: 'flood',
  label: policyTypeLabels.flood,
  detect: (text) =>
    score(text, [
      [/\bflood\b/i, 5],
      [/NFIP/i, 3],
    ]),
  extract(pages, emit) {
    declarationCore(pages, emit);
    partyFields(pages, emit);
  },
};
