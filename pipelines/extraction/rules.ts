// Rule-based extraction on positioned text, the offline default: which kind a document is, and running that
// kind's module from the registry (kinds/). The finders the modules compose live in declarations.ts, parties.ts,
// vehicles.ts, certificate.ts and limits.ts.
import type { PageText } from '../documents/layout.ts';
import type { Candidate } from './candidates.ts';
import type { DocumentKind } from './schema.ts';
import type { Emit } from './kinds/types.ts';
import { certificatePage } from './certificate.ts';
import { certificateForm, declarationKinds, kindModule } from './kinds/index.ts';
import { isAcordBinder } from './kinds/acord75.ts';
import { CERTIFICATE_TITLE } from './kinds/free_certificate.ts';

/** A title line that is only a certificate's title, a member's or program's among them. */
const CERTIFICATE_TITLE_LINE = new RegExp(`^\\s*(?:member\\s+|program\\s+)?(?:${CERTIFICATE_TITLE.source})\\s*$`, 'im');

/** Which kind of document this is, from its words. */
export function detectKind(pages: PageText[]): DocumentKind {
  const all = pages.map((p) => p.text).join('\n');
  const head = pages
    .slice(0, 2)
    .map((p) => p.text)
    .join('\n');
  // The title at the top of page 1 counts three times as much as a word anywhere in the document.
  const title =
    pages[0]?.lines
      .slice(0, 12)
      .map((l) => l.text)
      .join('\n') ?? '';
  const text = `${all}\n${title}\n${title}`;
  if (
    /certificate of (liability )?insurance|evidence of (commercial )?property insurance|certificate of property insurance/i.test(head) ||
    (/insurance binder/i.test(title) && isAcordBinder(head)) ||
    // A certificate that is not an ACORD form says so in its title ("Evidence of Insurance", "Memorandum of Insurance"),
    // a line of its own or a cell (the date of issue may stand beside it).
    CERTIFICATE_TITLE_LINE.test(title) ||
    (pages[0]?.lines.slice(0, 12).some((l) => l.cells.some((c) => CERTIFICATE_TITLE_LINE.test(c.text))) ?? false)
  )
    return 'certificate';
  // Each declarations kind's module scores the words; the best score of 3 or more names the kind.
  const scores: Record<string, number> = Object.fromEntries(declarationKinds.map((m) => [m.kind, m.detect(text, title)]));
  const best = Object.entries(scores).sort((a, b) => b[1] - a[1])[0];
  return best[1] >= 3 ? (best[0] as DocumentKind) : 'unknown';
}

function emitter(out: Candidate[]): Emit {
  return (c) => out.push({ source: 'rules', confidence: 0.9, ...c });
}

/** "Dear Gemma,": a letter's salutation names the insured when nothing else does (not "Dear Valued Customer"). */
function salutation(pages: PageText[]): Candidate | undefined {
  for (const page of pages.slice(0, 3))
    for (const line of page.lines) {
      const m = /^[Dd]ear\s+([A-Z][a-z'’-]+(?:\s+[A-Z][a-z'’-]+){0,2}),?$/.exec(line.cells[0]?.text.trim() ?? '');
      if (!m || /\b(member|customer|client|policyholder|insured|valued|sir|madam|friend|homeowner|owner|resident|agent)s?\b/i.test(m[1])) continue;
      const words = m[1].split(/\s+/);
      return {
        pointer: words.length === 1 ? '/policyholder/first_name' : '/policyholder/last_name',
        value: words.length === 1 ? words[0] : words[words.length - 1],
        page: page.page,
        text: line.text,
        confidence: 0.5,
        source: page.source === 'ocr' ? 'ocr' : 'rules',
        rule: "policyholder: the letter's salutation (no named insured printed)",
      };
    }
  return undefined;
}

/**
 * What a declarations record still lacks after its kind's rules, from weaker evidence (low confidence, so flagged for
 * review): the insured's address from the insured location when no mailing address is printed (redacted), and a first
 * name from the letter's salutation when no named insured is.
 */
function fillFromWeakerEvidence(pages: PageText[], out: Candidate[]): void {
  const has = (p: RegExp) => out.some((c) => p.test(c.pointer) && c.value !== null);
  const premises = out.find((c) => c.pointer === '/property/address' && c.value !== null);
  if (!has(/^\/policyholder\/address$/) && premises)
    out.push({
      ...premises,
      pointer: '/policyholder/address',
      confidence: Math.min(premises.confidence, 0.55),
      rule: 'policyholder address: the insured location (no mailing address printed)',
    });
  if (!has(/^\/policyholder\/(first_name|last_name|organization)$/)) {
    const s = salutation(pages);
    if (s) {
      out.push(s);
      if (s.pointer === '/policyholder/last_name') {
        const first = /^[Dd]ear\s+([A-Z][a-z'’-]+)/.exec(s.text)?.[1];
        if (first) out.push({ ...s, pointer: '/policyholder/first_name', value: first });
      }
    }
  }
}

/** Run the rule extractors for a kind (its module in the registry) and return every candidate value. */
export function extractByRules(pages: PageText[], kind: DocumentKind): Candidate[] {
  const out: Candidate[] = [];
  const emit = emitter(out);
  if (kind === 'certificate') {
    // The certificate's form (ACORD 25/24 grid, 27/28 evidence of property, 75 binder) reads it.
    certificateForm(pages, certificatePage(pages)).extract(pages, emit);
    return out;
  }
  kindModule(kind).extract(pages, emit);
  fillFromWeakerEvidence(pages, out);
  return out;
}

/** The descriptive policy_type label: the kind's label, refined by the form named in the document. */
export function describePolicyType(kind: DocumentKind, pages: PageText[]): string {
  const text = pages
    .slice(0, 2)
    .map((p) => p.text)
    .join('\n');
  // The kind's module gives the label (the certificate's form module for certificates), refined by the printed form.
  const m = kind === 'certificate' ? certificateForm(pages, certificatePage(pages)) : kindModule(kind);
  return typeof m.label === 'string' ? m.label : m.label(text);
}
