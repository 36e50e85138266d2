// Flood (NFIP and private) declarations: the common core.
import { declarationCore } from '../declarations.ts';
import { parties as partyFields } from '../parties.ts';
import { score, type KindModule } from './types.ts';

export const flood: KindModule = {
  id: 'flood',
  kind: 'flood',
  label: 'Flood',
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
