// Lease facts: the parties, the premises, the term and every insurance requirement the lease states, each
// with the page it is on. Rules over clauses and labelled lines; values that cannot be grounded are dropped.
import type { PageText } from '../documents/layout.ts';
import { clauses } from './text.ts';
import type { LeaseFacts } from './schema.ts';
import { labelledEntries, inlineEntries, definitionEntries } from './lease_entries.ts';
import { party, manager as managerOf } from './lease_parties.ts';
import { propertyAddress } from './lease_premises.ts';
import { leaseDates } from './lease_term.ts';
import { requirements } from './lease_requirements.ts';

export function leaseFacts(pages: PageText[]): LeaseFacts {
  const all = clauses(pages);
  const entries = [...labelledEntries(pages), ...definitionEntries(all), ...inlineEntries(pages)].sort((a, b) => a.page - b.page);
  const landlord = party(pages, all, entries, 'landlord');
  const tenant = party(pages, all, entries, 'tenant');
  const manager = managerOf(all, entries);
  const { start, end, openTerm, rules } = leaseDates(pages, all, entries);
  const text = pages.map((p) => p.text).join('\n');
  // "No business shall be conducted on the Premises" is a residential lease's rule: a resident, a private
  // residence or renters insurance makes the lease residential.
  const commercial =
    /\bcommercial\b|\boffice lease\b|\bretail\b|\bindustrial\b|\bpermitted use\b|\brentable square feet\b|\bbusiness\b.*\bpremises\b/i.test(text) &&
    !/\bresidential\b|\bapartment\b|\bdwelling unit\b|\bprivate residence\b|\brenter['’]?s?['’]?\s+insurance\b|\bResidents?\b/i.test(text.slice(0, 3000));
  return {
    type: commercial ? 'commercial' : 'residential',
    propertyAddress: propertyAddress(all, entries),
    landlord,
    manager,
    tenant,
    leaseStart: start,
    leaseEnd: end,
    termRules: rules,
    openTerm,
    requirements: requirements(all, entries),
  };
}
