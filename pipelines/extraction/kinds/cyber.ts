// Cyber liability declarations: the common core.
import { declarationCore, partyFields } from '../rules.ts';
import { policyTypeLabels } from '../schema.ts';
import { score, type KindModule } from './types.ts';

export const cyber: KindModule = {
  id: 'cyber',
  kind: 'cyber',
  label: policyTypeLabels.cyber,
  detect: (text) =>
    score(text, [
      [/cyber/i, 6],
      [/data breach|network security/i, 2],
    ]),
  extract(pages, emit) {
    declarationCore(pages, emit);
    partyFields(pages, emit);
  },
};
