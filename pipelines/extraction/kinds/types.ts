// What every document-kind module provides: a detection score from the document's words, the policy-type label it
// reports, and the rules that read its fields. The registry (index.ts) collects them; adding a kind touches one
// module file and the registry.
import type { PageText } from '../../documents/layout.ts';
import type { Candidate } from '../candidates.ts';
import type { DocumentKind } from '../schema.ts';

export type Emit = (c: Omit<Candidate, 'source' | 'confidence'> & Partial<Pick<Candidate, 'source' | 'confidence' | 'rule'>>) => void;

export interface KindModule {
  /** Registry id: the document kind, or a certificate form ("acord25", "acord28", "acord75"). */
  id: string;
  /** The document_kind the record reports. */
  kind: DocumentKind;
  /** The policy_type label (a function when the printed form refines it). */
  label: string | ((text: string) => string);
  /** How strongly the document's words say it is this kind (0: not at all). `title` is the top of page 1. */
  detect(text: string, title: string): number;
  /** Emit candidate values for this kind's fields. */
  extract(pages: PageText[], emit: Emit): void;
}

/** Weighted count of matches (each pattern counted at most 3 times). */
export function score(text: string, res: [RegExp, number][]): number {
  return res.reduce(
    (n, [re, w]) => n + w * Math.min(3, (text.match(new RegExp(re.source, re.flags.includes('g') ? re.flags : `${re.flags}g`)) ?? []).length),
    0,
  );
}
