// Workers' compensation and employers' liability declarations: the common core.
import { declarationCore } from '../declarations.ts';
import { parties as partyFields } from '../parties.ts';
import { score, type KindModule } from './types.ts';

export const workersComp: KindModule = {
  id: 'workers_comp',
  kind: 'workers_comp',
  label: "Workers' Compensation",
  detect: (text) =>
    score(text, [
      [/workers'? comp/i, 6],
      [/employers'? liability/i, 3],
    ]),
  extract(pages, emit) {
    declarationCore(pages, emit);
    partyFields(pages, emit);
  },
};
