// ACORD 25 (Certificate of Liability Insurance) and the forms sharing its layout (ACORD 24 certificate of property,
// ACORD 23 vehicle, non-ACORD certificates): PRODUCER / INSURED / CERTIFICATE HOLDER boxes, INSURER A–F and the
// coverage grid, read by certificate.ts; the common labels fill what the grid did not.
import { extractCertificate } from '../certificate.ts';
import { findCarrier } from '../names.ts';
import { policyNumber, period } from '../declarations.ts';
import type { KindModule } from './types.ts';

const TITLE = /certificate of (liability )?insurance|certificate of property insurance|evidence of insurance/i;

export const acord25: KindModule = {
  id: 'acord25',
  kind: 'certificate',
  label: (text) => {
    if (/certificate of property/i.test(text)) return 'Certificate of Property Insurance';
    return /ACORD 25\b/i.test(text) ? 'Certificate of Liability Insurance (ACORD 25)' : 'Certificate of Liability Insurance';
  },
  detect: (text, title) => (TITLE.test(title) ? 15 : TITLE.test(text) ? 10 : 0),
  extract(pages, emit) {
    extractCertificate(pages, emit);
    findCarrier(pages, emit);
    policyNumber(pages, emit);
    period(pages, emit);
  },
};
