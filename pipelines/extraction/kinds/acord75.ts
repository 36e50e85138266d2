// ACORD 75 (Insurance Binder): AGENCY and COMPANY boxes, the binder's EFFECTIVE / EXPIRATION dates, INSURED AND
// MAILING ADDRESS, the coverage sections (PROPERTY, GENERAL LIABILITY, VEHICLE LIABILITY, GARAGE LIABILITY,
// EXCESS LIABILITY, WORKER'S COMPENSATION) each kept when it carries an amount in the LIMITS / AMOUNT column,
// and the "NAME & ADDRESS" box of the mortgagee / loss payee / additional insured (the holder's place).
import type { PageText, Line } from '../../documents/layout.ts';
import { certificatePage } from '../certificate.ts';
import type { CertificateCoverageType } from '../certificate.ts';
import { dateTokens, parseMoney } from '../normalise.ts';
import { formBoxes } from './form_boxes.ts';
import type { Emit, KindModule } from './types.ts';

const SECTIONS: [RegExp, CertificateCoverageType][] = [
  [/^property$/i, 'property'],
  [/^general liability$/i, 'general_liability'],
  [/^(vehicle|automobile|auto) liability$/i, 'automobile_liability'],
  [/^garage liability$/i, 'other'],
  [/^(excess|umbrella) liability$/i, 'umbrella_liability'],
  [/^worker'?s'? compensation$/i, 'workers_compensation'],
];

/** The amount printed after a limit's caption in a section's lines (same line, right of it). */
function amountAfter(lines: Line[], caption: RegExp): number | null {
  for (const l of lines) {
    const i = l.cells.findIndex((c) => caption.test(c.text));
    if (i < 0) continue;
    for (const c of l.cells.slice(i + 1)) {
      const n = /\d/.test(c.text) && !/\//.test(c.text) ? parseMoney(c.text) : undefined;
      if (n !== undefined && n >= 100) return n;
    }
    return null;
  }
  return null;
}

function extract(pages: PageText[], emit: Emit): void {
  const page = certificatePage(pages);
  if (!page) return;
  const { at, box, also } = formBoxes(page, emit, 'ACORD 75');
  box('/certificate/producer', /^agency$/i, 'AGENCY');
  const company = box('/certificate/insurers/0/name', /^company$/i, 'COMPANY', true);
  if (company) also(company, 'COMPANY', { '/certificate/insurers/0/letter': 'A', '/certificate/insurers/0/naic': null, '/policy/provider': company.name });
  const insured = box('/certificate/insured', /^insured(\s+and\s+mailing\s+address)?$/i, 'INSURED AND MAILING ADDRESS');
  if (insured) also(insured, 'INSURED', { '/policyholder/organization': insured.name });
  const holder = box('/certificate/certificate_holder', /^name\s*(&|and)\s*address$/i, 'NAME & ADDRESS (mortgagee / loss payee / additional insured)');
  if (holder) also(holder, 'NAME & ADDRESS', { '/interested_parties/0/name': holder.name, '/interested_parties/0/role': holder.role ?? 'additional_interest' });
  // The binder period: the first two dates on the lines under the EFFECTIVE / EXPIRATION captions.
  const ei = page.lines.findIndex((l) => /\beffective\b/i.test(l.text) && l.cells.some((c) => c.x > page.width * 0.4));
  const dates =
    ei < 0
      ? []
      : dateTokens(
          page.lines
            .slice(ei, ei + 4)
            .map((l) =>
              l.cells
                .filter((c) => c.x > page.width * 0.4)
                .map((c) => c.text)
                .join('  '),
            )
            .join('\n'),
        );
  const eff = dates[0]?.iso ?? null;
  const exp = dates[1] && dates[1].iso > dates[0].iso ? dates[1].iso : null;
  const periodText =
    ei < 0
      ? ''
      : page.lines
          .slice(ei, ei + 4)
          .map((l) => l.text)
          .join('\n');
  if (eff) emit({ pointer: '/policy/effective_date', value: eff, ...at, text: periodText, source: 'rules', rule: 'ACORD 75 box: EFFECTIVE DATE' });
  if (exp) emit({ pointer: '/policy/expiration_date', value: exp, ...at, text: periodText, source: 'rules', rule: 'ACORD 75 box: EXPIRATION DATE' });
  // Coverage sections: a caption in the left column opens a section that runs to the next caption.
  const starts: { i: number; type: CertificateCoverageType }[] = [];
  page.lines.forEach((l, i) => {
    const first = l.cells[0];
    if (!first || first.x > page.width * 0.15) return;
    const s = SECTIONS.find(([re]) => re.test(first.text.trim()));
    if (s) starts.push({ i, type: s[1] });
  });
  const end = page.lines.findIndex((l, i) => i > (starts[0]?.i ?? 0) && /^(special|name\s*&\s*address)/i.test(l.cells[0]?.text ?? ''));
  let n = 0;
  starts.forEach((s, k) => {
    const to = starts[k + 1]?.i ?? (end > 0 ? end : page.lines.length);
    const lines = page.lines.slice(s.i, to);
    // A section counts when it prints at least one amount in the limits column.
    const amounts = lines.flatMap((l) => l.cells.filter((c) => c.x > page.width * 0.8 && /\d{2,}/.test(c.text)));
    if (amounts.length === 0) return;
    const p = `/certificate/coverages/${n++}`;
    const base = {
      ...at,
      text: lines
        .map((l) => l.text)
        .join('\n')
        .slice(0, 500),
      source: page.source === 'ocr' ? 'ocr' : 'rules',
      rule: `ACORD 75 section: ${lines[0].cells[0].text}`,
    } as const;
    emit({ pointer: `${p}/type`, value: s.type, ...base });
    emit({ pointer: `${p}/insurer_letter`, value: company ? 'A' : null, ...base });
    emit({ pointer: `${p}/policy_number`, value: null, ...base });
    emit({ pointer: `${p}/effective_date`, value: eff, ...base });
    emit({ pointer: `${p}/expiration_date`, value: exp, ...base });
    const gl = s.type === 'general_liability';
    emit({ pointer: `${p}/each_occurrence`, value: gl ? amountAfter(lines, /^each occurrence$/i) : null, ...base });
    emit({ pointer: `${p}/general_aggregate`, value: gl ? amountAfter(lines, /^general aggregate$/i) : null, ...base });
    emit({
      pointer: `${p}/combined_single_limit`,
      value: s.type === 'automobile_liability' ? amountAfter(lines, /^combined single limit$/i) : null,
      ...base,
    });
    emit({ pointer: `${p}/umbrella_each_occurrence`, value: s.type === 'umbrella_liability' ? amountAfter(lines, /^each occurrence$/i) : null, ...base });
    emit({ pointer: `${p}/el_each_accident`, value: s.type === 'workers_compensation' ? amountAfter(lines, /e\.?l\.? each accident/i) : null, ...base });
  });
}

/**
 * The ACORD 75 form, not any binder: its edition line, or its BINDER # and TYPE OF INSURANCE captions. (A carrier's
 * own "Renters Insurance Binder" is a declarations page and is read as one.)
 */
export function isAcordBinder(text: string): boolean {
  return /ACORD 75\b/i.test(text) || (/binder\s*#/i.test(text) && /type of insurance/i.test(text));
}

export const acord75: KindModule = {
  id: 'acord75',
  kind: 'certificate',
  label: 'Insurance Binder (ACORD 75)',
  detect: (text, title) => (/insurance binder/i.test(title) && isAcordBinder(text) ? 25 : 0),
  extract,
};
