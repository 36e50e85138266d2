// The registry of document-kind modules. Certificates come in several ACORD forms with different boxes, so the
// certificate kind is a family of form modules; the best-scoring form reads the document.
import type { PageText } from '../../documents/layout.ts';
import { acord25 } from './acord25.ts';
import { acordEvidence } from './acord_evidence.ts';
import { acord75 } from './acord75.ts';
import type { KindModule } from './types.ts';

export type { KindModule, Emit } from './types.ts';

/** Certificate and evidence forms, most specific first. */
export const certificateForms: KindModule[] = [acord75, acordEvidence, acord25];

/** The words a kind module's `detect` reads: all pages' text, and the top of the page holding the form. */
export function detectionText(pages: PageText[], page?: PageText): { text: string; title: string } {
  const p = page ?? pages[0];
  return {
    text: pages.map((x) => x.text).join('\n'),
    title:
      p?.lines
        .slice(0, 12)
        .map((l) => l.text)
        .join('\n') ?? '',
  };
}

/** The certificate form module that reads this document (ACORD 25 layout when nothing more specific scores). */
export function certificateForm(pages: PageText[], page?: PageText): KindModule {
  const { text, title } = detectionText(pages, page);
  let best = acord25;
  let top = 0;
  for (const m of certificateForms) {
    const s = m.detect(text, title);
    if (s > top) [best, top] = [m, s];
  }
  return best;
}
