// Certificates of insurance that are not ACORD forms (an agency system's own certificate, a carrier's evidence of
// insurance, a member or program certificate): read by vocabulary and geometry (free_certificate.ts); the common
// labels fill what the blocks did not.
import { certificatePage } from '../certificate.ts';
import { extractFreeCertificate, isFreeCertificate } from '../free_certificate.ts';
import { findCarrier } from '../names.ts';
import { policyNumber, period } from '../declarations.ts';
import type { KindModule } from './types.ts';

/** A certificate's title, as agency systems and carriers word it ("Certificate of Liability Coverage", "Proof of Insurance"). */
export const CERTIFICATE_TITLE =
  /certificate of (?:(?:general |workers'? comp(?:ensation)? |auto(?:mobile)? |umbrella )?(?:liability )?)?(?:insurance|coverage)|evidence of (?:liability )?(?:insurance|coverage)|memorandum of insurance|proof of (?:liability )?insurance|verification of (?:insurance|coverage)/i;

export const freeCertificate: KindModule = {
  id: 'certificate_free',
  kind: 'certificate',
  label: 'Certificate of Insurance',
  // Outscores the ACORD 25 reader (15) only on a certificate with none of the ACORD form's markers.
  detect: (text, title) => (CERTIFICATE_TITLE.test(title) && isFreeCertificate(text) ? 16 : 0),
  extract(pages, emit) {
    const page = certificatePage(pages);
    if (page) extractFreeCertificate(page, emit);
    findCarrier(pages, emit);
    policyNumber(pages, emit);
    period(pages, emit);
  },
};
