// Personal umbrella declarations: the common core.
import { declarationCore, partyFields } from '../rules.ts';
import { policyTypeLabels } from '../schema.ts';
import { score, type KindModule } from './types.ts';

export const umbrella: KindModule = {
  id: 'umbrella',
  kind: 'umbrella',
  label: policyTypeLabels.umbrella,
  detect: (text) =>
    score(text, [
      [/personal umbrella/i, 6],
      [/umbrella/i, 3],
    ]),
  extract(pages, emit) {
    declarationCore(pages, emit);
    partyFields(pages, emit);
  },
};
