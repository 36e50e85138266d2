// Cyber liability declarations: the common core.
import { declarationCore } from '../declarations.ts';
import { parties as partyFields } from '../parties.ts';
import { score, type KindModule } from './types.ts';

export const cyber: KindModule = {
  id: 'cyber',
  kind: 'cyber',
  label: 'Cyber Liability',
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
