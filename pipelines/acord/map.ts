// Answers → ACORD field values. A question names the field it fills (`acord_field`, e.g.
// `ACORD90.Applicant.FirstName`); a data table names a repeating group (`ACORD90.Driver`) and each column a
// field of it (`ACORD90.Driver.LicenseNumber`). Values are printed text; which forms apply is decided by
// the answers, and a report lists the required fields of those forms that the form did not capture.
import type { FormStructure, Question } from '../forms/schema.ts';
import { ACORD_FORMS, ACORD_FORM_IDS, splitAcordField } from './forms.ts';

export interface AcordFormValues {
  fields: Record<string, string>;
  groups: Record<string, Record<string, string>[]>;
}

export interface MissingField {
  form_id: string;
  field: string;
  label: string;
}

export interface AcordMapping {
  /** ACORD numbers of the forms that apply (at least one answer fills them), in archive order. */
  form_ids: string[];
  forms: Record<string, AcordFormValues>;
  missing: MissingField[];
}

/** 2024-05-01 → 05/01/2024 (the way ACORD forms print dates); anything else unchanged. */
export function formatDate(v: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  return m ? `${m[2]}/${m[3]}/${m[1]}` : v;
}

/** One answer as printed text. */
export function printable(type: Question['type'] | string, value: unknown): string {
  if (value === null || value === undefined) return '';
  if (type === 'date' && typeof value === 'string') return formatDate(value);
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) {
    if (type === 'file_upload')
      return value
        .map((x) => (x && typeof x === 'object' ? String((x as { filename?: unknown }).filename ?? '') : ''))
        .filter(Boolean)
        .join('; ');
    return value
      .map((x) => printable('short_text', x))
      .filter(Boolean)
      .join(', ');
  }
  if (typeof value === 'object') {
    const a = value as Record<string, string | undefined>;
    const cityLine = [a.city, [a.state, a.postal_code].filter(Boolean).join(' ')].filter(Boolean).join(', ');
    return [a.line1, a.line2, cityLine, a.county ? `${a.county} County` : undefined, a.country && a.country !== 'US' ? a.country : undefined]
      .filter(Boolean)
      .join(', ');
  }
  return '';
}

function slot(out: Record<string, AcordFormValues>, formId: string): AcordFormValues {
  out[formId] ??= { fields: {}, groups: {} };
  return out[formId];
}

/** Map the checked answers of a submission (by question id) to the ACORD forms its questions name. */
export function mapToAcord(structure: FormStructure, answers: Readonly<Record<string, unknown>>): AcordMapping {
  const forms: Record<string, AcordFormValues> = {};
  for (const step of structure.steps) {
    for (const q of step.questions) {
      if (!Object.hasOwn(answers, q.id)) continue;
      const value = answers[q.id];
      if (q.type === 'data_table') {
        const group = q.acord_field ? splitAcordField(q.acord_field) : null;
        const rows = Array.isArray(value) ? (value as Record<string, unknown>[]) : [];
        for (const col of q.settings.columns) {
          const target = col.acord_field ? splitAcordField(col.acord_field) : null;
          if (!target) continue;
          const groupKey =
            group && target.formId === group.formId && target.key.startsWith(`${group.key}.`) ? group.key : target.key.slice(0, target.key.lastIndexOf('.'));
          const colKey = target.key.slice(groupKey.length + 1);
          if (!groupKey || !colKey) continue;
          const list = (slot(forms, target.formId).groups[groupKey] ??= []);
          rows.forEach((row, i) => {
            const text = printable(col.type, row[col.id]);
            list[i] ??= {};
            if (text) list[i][colKey] = text;
          });
        }
        continue;
      }
      const target = q.acord_field ? splitAcordField(q.acord_field) : null;
      if (!target) continue;
      const text = printable(q.type, value);
      if (text) slot(forms, target.formId).fields[target.key] = text;
    }
  }
  const applies = (id: string) => {
    const v = forms[id];
    return !!v && (Object.keys(v.fields).length > 0 || Object.values(v.groups).some((rows) => rows.some((r) => Object.keys(r).length > 0)));
  };
  const form_ids = ACORD_FORM_IDS.filter((id) => applies(id));
  const missing: MissingField[] = [];
  for (const id of form_ids) {
    const def = ACORD_FORMS[id];
    for (const section of def.sections) {
      for (const field of section.fields)
        if (field.required && !forms[id].fields[field.key]) missing.push({ form_id: id, field: `ACORD${id}.${field.key}`, label: field.label });
    }
    for (const group of def.groups) {
      if (group.required && !(forms[id].groups[group.key] ?? []).some((r) => Object.keys(r).length > 0))
        missing.push({ form_id: id, field: `ACORD${id}.${group.key}`, label: group.label });
    }
  }
  return { form_ids: [...form_ids], forms: Object.fromEntries(form_ids.map((id) => [id, forms[id]])), missing };
}
