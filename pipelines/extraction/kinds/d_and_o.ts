// Directors & officers liability declarations: the common core.
import { declarationCore, partyFields } from '../rules.ts';
import { policyTypeLabels } from '../schema.ts';
import { score, type KindModule } from './types.ts';

export const dAndO: KindModule = {
  id: 'd_and_o',
  kind: 'd_and_o',
  label: policyTypeLabels.d_and_o,
  detect: (text) => score(text, [[/directors (and|&) officers|\bD ?& ?O\b/i, 7]]),
  extract(pages, emit) {
    declarationCore(pages, emit);
    partyFields(pages, emit);
  },
};
