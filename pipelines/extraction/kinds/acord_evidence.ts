// ACORD 27 (Evidence of Property Insurance) and ACORD 28 (Evidence of Commercial Property Insurance): one company,
// no INSURER letters and no coverage grid. Read by the forms' fixed boxes: AGENCY / PRODUCER NAME (left), COMPANY
// (right), INSURED (left) beside LOAN NUMBER / POLICY NUMBER / EFFECTIVE DATE / EXPIRATION DATE (right), and the
// ADDITIONAL INTEREST "NAME AND ADDRESS" box at the foot, which stands in for a certificate holder.
import type { PageText } from '../../documents/layout.ts';
import { valueUnder, checkedAnswer, certificatePage } from '../certificate.ts';
import { parseDate } from '../normalise.ts';
import { formBoxes } from './form_boxes.ts';
import type { Emit, KindModule } from './types.ts';

const TITLE = /evidence of (commercial )?property insurance/i;

function extract(pages: PageText[], emit: Emit): void {
  const page = certificatePage(pages);
  if (!page) return;
  const form = /evidence of commercial property/i.test(page.text) ? 'ACORD 28' : 'ACORD 27';
  const { at, box, also } = formBoxes(page, emit, form);
  box('/certificate/producer', /^(producer name|agency)\b,?(?!\s*customer)/i, 'AGENCY / PRODUCER');
  const insured = box('/certificate/insured', /^(named\s+)?insured(\s+and\s+address)?$/i, 'NAMED INSURED AND ADDRESS');
  if (insured) also(insured, 'INSURED', { '/policyholder/organization': insured.name });
  const company = box('/certificate/insurers/0/name', /^company(\s+name\s+and\s+address)?$/i, 'COMPANY', true);
  if (company) {
    const naic = /NAIC\s*(?:NO|#|CODE)?\s*[:.]?\s*(\d{5})\b/i.exec(page.text)?.[1] ?? null;
    also(company, 'COMPANY', { '/certificate/insurers/0/letter': 'A', '/certificate/insurers/0/naic': naic, '/policy/provider': company.name });
  }
  // The additional interest's NAME AND ADDRESS box (mortgagee, loss payee...).
  const interest = box('/certificate/certificate_holder', /^name\s+and\s+address$/i, 'ADDITIONAL INTEREST NAME AND ADDRESS');
  if (interest)
    also(interest, 'ADDITIONAL INTEREST', {
      '/interested_parties/0/name': interest.name,
      '/interested_parties/0/role': interest.role ?? 'additional_interest',
    });
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
