// What the lease tests build by hand: the facts of an insurance document and a read document for the lease stage.
import type { DocumentText } from '../../pipelines/documents/index.ts';
import { layoutPage, type PageText, type TextItem } from '../../pipelines/documents/layout.ts';
import type { InsuranceFacts } from '../../pipelines/lease/index.ts';
import { leaseFacts } from '../../pipelines/lease/lease_facts.ts';

/** The facts of a renters policy that states nothing (every field empty); `over` sets what a test needs. */
export function insuranceFacts(over: Partial<InsuranceFacts> = {}): InsuranceFacts {
  return {
    kind: 'renters',
    policyType: 'Renters (HO-4)',
    carrier: null,
    policyNumber: null,
    policyNumbers: [],
    insured: null,
    effectiveDate: null,
    expirationDate: null,
    liability: null,
    propertyDamage: null,
    workersComp: null,
    umbrella: null,
    auto: null,
    professional: null,
    parties: [],
    hasCertificateHolderSection: false,
    waiverOfSubrogation: null,
    primaryNonContributory: null,
    propertyAddress: null,
    markers: [],
    ...over,
  };
}

/** `pages` as the reading stage hands a read PDF to the lease stage (`method` how its pages were read). */
export function readDocument(pages: PageText[], method: 'text' | 'mixed' = 'text'): DocumentText {
  return {
    pages,
    pageCount: pages.length,
    method,
    errors: [],
    status: 'success',
    sniffed: { mime: 'application/pdf', bytes: 1 },
  } as unknown as DocumentText;
}

/** A page of lines; a line may hold cells ("LANDLORD", "TENANT") at their own x. */
export function linesPage(n: number, lines: (string | [number, string][])[]): PageText {
  const items: TextItem[] = [];
  lines.forEach((l, i) => {
    const cells: [number, string][] = typeof l === 'string' ? [[60, l]] : l;
    for (const [x, text] of cells) items.push({ text, x, y: 60 + i * 14, w: text.length * 4.2, h: 10, source: 'text' });
  });
  return layoutPage(n, 612, 792, items, 'text');
}

/** A line of two cells: `left` at x 60 and `right` at x `at` (a summary's label and its value, or two columns). */
export const row = (left: string, right: string, at = 230): [number, string][] => [
  [60, left],
  [at, right],
];

/** The lease facts of a one-page lease of these lines. */
export const factsOfLines = (lines: (string | [number, string][])[]) => leaseFacts([linesPage(1, lines)]);
