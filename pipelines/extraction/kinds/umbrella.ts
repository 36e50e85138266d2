// Personal umbrella declarations: the common core.
import { declarationCore } from '../declarations.ts';
import { parties as partyFields } from '../parties.ts';
import { score, type KindModule } from './types.ts';

export const umbrella: KindModule = {
  id: 'umbrella',
  kind: 'umbrella',
  label: 'Personal Umbrella',
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
