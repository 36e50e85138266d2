// A document no kind module recognised: the common core (carrier, policy number, period, premium, named insured,
// coverage table) and the parties.
import { declarationCore } from '../declarations.ts';
import { parties as partyFields } from '../parties.ts';
import type { KindModule } from './types.ts';

export const unknownKind: KindModule = {
  id: 'unknown',
  kind: 'unknown',
  label: 'Insurance Policy',
  detect: () => 0,
  extract(pages, emit) {
    declarationCore(pages, emit);
    partyFields(pages, emit);
  },
};
