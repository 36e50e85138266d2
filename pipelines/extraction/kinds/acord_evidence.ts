// ACORD 27 (Evidence of Property Insurance) and ACORD 28 (Evidence of Commercial Property Insurance): one company,
// no INSURER letters and no coverage grid. Read by the forms' fixed boxes: AGENCY / PRODUCER NAME (left), COMPANY
// (right), INSURED (left) beside LOAN NUMBER / POLICY NUMBER / EFFECTIVE DATE / EXPIRATION DATE (right), and the
// ADDITIONAL INTEREST "NAME AND ADDRESS" box at the foot, which stands in for a certificate holder.
import type { PageText } from '../../documents/layout.ts';
import { boxBelow, valueUnder, checkedAnswer, certificatePage, EMPTY_BOX } from '../certificate.ts';
import { cellSource } from '../layout_query.ts';
import { parseDate } from '../normalise.ts';
import type { Emit, KindModule } from './types.ts';

const TITLE = /evidence of (commercial )?property insurance/i;

function extract(pages: PageText[], emit: Emit): void {
  const page = certificatePage(pages);
  if (!page) return;
  const form = /evidence of commercial property/i.test(page.text) ? 'ACORD 28' : 'ACORD 27';
  const conf = page.source === 'ocr' ? 0.75 : 0.9;
  const at = { page: page.page, confidence: conf };
  const box = (pointer: string, label: RegExp, caption: string, anyColumn = false) => {
    const b = boxBelow(page, label, { anyColumn });
    if (!b || EMPTY_BOX.test(b.name)) return undefined;
    emit({ pointer, value: b.name, ...at, text: b.text, source: cellSource(page, b.cell), rule: `${form} box: ${caption}` });
    return b;
  };
  box('/certificate/producer', /^(producer name|agency)\b,?(?!\s*customer)/i, 'AGENCY / PRODUCER');
  const insured = box('/certificate/insured', /^(named\s+)?insured(\s+and\s+address)?$/i, 'NAMED INSURED AND ADDRESS');
  if (insured)
    emit({
      pointer: '/policyholder/organization',
      value: insured.name,
      ...at,
      text: insured.text,
      source: cellSource(page, insured.cell),
      rule: `${form} box: INSURED`,
    });
  const company = box('/certificate/insurers/0/name', /^company(\s+name\s+and\s+address)?$/i, 'COMPANY', true);
  if (company) {
    const naic = /NAIC\s*(?:NO|#|CODE)?\s*[:.]?\s*(\d{5})\b/i.exec(page.text)?.[1] ?? null;
    const base = { ...at, text: company.text, source: cellSource(page, company.cell), rule: `${form} box: COMPANY` } as const;
    emit({ pointer: '/certificate/insurers/0/letter', value: 'A', ...base });
    emit({ pointer: '/certificate/insurers/0/naic', value: naic, ...base });
    emit({ pointer: '/policy/provider', value: company.name, ...base });
  }
  // The additional interest's NAME AND ADDRESS box (mortgagee, loss payee...).
  const interest = box('/certificate/certificate_holder', /^name\s+and\s+address$/i, 'ADDITIONAL INTEREST NAME AND ADDRESS');
  if (interest) {
    const base = { ...at, text: interest.text, source: cellSource(page, interest.cell), rule: `${form} box: ADDITIONAL INTEREST` } as const;
    emit({ pointer: '/interested_parties/0/name', value: interest.name, ...base });
    emit({ pointer: '/interested_parties/0/role', value: 'additional_interest', ...base });
  }
  const pn = valueUnder(page, /^policy\s+number$/i, (s) => /\d/.test(s) && /^[A-Z0-9][A-Z0-9 -]{3,30}$/i.test(s));
  const eff = valueUnder(page, /^effective\s+date$/i, (s) => parseDate(s) !== undefined);
  const exp = valueUnder(page, /^expiration\s+date$/i, (s) => parseDate(s) !== undefined);
  const c0 = '/certificate/coverages/0';
  const src = page.source === 'ocr' ? 'ocr' : 'rules';
  const row = {
    ...at,
    text: [pn, eff, exp].map((v) => v?.line.text ?? '').join('\n'),
    source: src,
    rule: `${form} boxes: POLICY NUMBER / EFFECTIVE DATE / EXPIRATION DATE`,
  } as const;
  if (!pn && !eff) return;
  emit({ pointer: `${c0}/type`, value: 'property', ...row });
  emit({ pointer: `${c0}/insurer_letter`, value: company ? 'A' : null, ...row });
  emit({ pointer: `${c0}/policy_number`, value: pn?.value ?? null, ...row });
  emit({ pointer: `${c0}/effective_date`, value: eff ? parseDate(eff.value)! : null, ...row });
  emit({ pointer: `${c0}/expiration_date`, value: exp ? parseDate(exp.value)! : null, ...row });
  // ACORD 28: "PERMISSION TO WAIVE SUBROGATION IN FAVOR OF MORTGAGE HOLDER PRIOR TO LOSS" YES / NO / N/A.
  const waive = checkedAnswer(page, /permission to waive subrogation/i);
  emit({ pointer: `${c0}/subrogation_waived`, value: waive ?? null, ...row, rule: `${form}: PERMISSION TO WAIVE SUBROGATION (YES/NO column of the mark)` });
  if (pn) emit({ pointer: '/policy/policy_number', value: pn.value, ...row });
  if (eff) emit({ pointer: '/policy/effective_date', value: parseDate(eff.value)!, ...row });
  if (exp) emit({ pointer: '/policy/expiration_date', value: parseDate(exp.value)!, ...row });
}

export const acordEvidence: KindModule = {
  id: 'acord27_28',
  kind: 'certificate',
  label: (text) => (/evidence of commercial property/i.test(text) ? 'Evidence of Commercial Property Insurance' : 'Evidence of Property Insurance'),
  detect: (_text, title) => (TITLE.test(title) ? 20 : 0),
  extract,
};
