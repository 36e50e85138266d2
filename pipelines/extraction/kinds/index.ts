// The registry of document-kind modules. Certificates come in several ACORD forms with different boxes, so the
// certificate kind is a family of form modules; the best-scoring form reads the document.
import type { PageText } from '../../documents/layout.ts';
import { acord25 } from './acord25.ts';
import { acordEvidence } from './acord_evidence.ts';
import { acord75 } from './acord75.ts';
import { freeCertificate } from './free_certificate.ts';
import { personalAuto } from './personal_auto.ts';
import { commercialAuto } from './commercial_auto.ts';
import { homeowners } from './homeowners.ts';
import { renters } from './renters.ts';
import { businessowners } from './businessowners.ts';
import { commercialGeneralLiability } from './commercial_general_liability.ts';
import { umbrella } from './umbrella.ts';
import { commercialUmbrella } from './commercial_umbrella.ts';
import { flood } from './flood.ts';
import { workersComp } from './workers_comp.ts';
import { cyber } from './cyber.ts';
import { dAndO } from './d_and_o.ts';
import { commercialProperty } from './commercial_property.ts';
import type { KindModule } from './types.ts';
import type { DocumentKind } from '../schema.ts';

export type { KindModule, Emit } from './types.ts';
import { unknownKind } from './unknown.ts';

/** Certificate and evidence forms, most specific first. */
export const certificateForms: KindModule[] = [acord75, acordEvidence, freeCertificate, acord25];

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

/** Declarations kinds, in the order that breaks a tie in detection. Adding a kind: its module file and one line here. */
export const declarationKinds: KindModule[] = [
  personalAuto,
  commercialAuto,
  homeowners,
  renters,
  businessowners,
  commercialGeneralLiability,
  umbrella,
  commercialUmbrella,
  flood,
  workersComp,
  cyber,
  dAndO,
  commercialProperty,
];

/** The module that reads a declarations kind ('unknown' reads the common core only). */
export function kindModule(kind: DocumentKind): KindModule {
  return declarationKinds.find((m) => m.kind === kind) ?? unknownKind;
}
