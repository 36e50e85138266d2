// Directors & officers liability declarations: the common core.
import { declarationCore } from '../declarations.ts';
import { parties as partyFields } from '../parties.ts';
import { score, type KindModule } from './types.ts';

export const dAndO: KindModule = {
  id: 'd_and_o',
  kind: 'd_and_o',
  label: 'Directors & Officers Liability',
  detect: (text) => score(text, [[/directors (and|&) officers|\bD ?& ?O\b/i, 7]]),
  extract(pages, emit) {
    declarationCore(pages, emit);
    partyFields(pages, emit);
  },
};
