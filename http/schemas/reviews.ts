// What a reviewer may type as a corrected value, by the field's schema (pipelines/extraction/schema.ts): dates as
// YYYY-MM-DD (or MM/DD/YYYY), money as whole dollars ("$1,000,000" allowed), a split limit "100/300", policy
// numbers as printed, yes/no boxes, years, and names or addresses as text.
import { z } from 'zod';

const MONEY = new Set([
  'premium',
  'dwelling',
  'other_structures',
  'personal_property',
  'loss_of_use',
  'personal_liability',
  'medical_payments',
  'each_occurrence',
  'general_aggregate',
  'combined_single_limit',
  'umbrella_each_occurrence',
  'el_each_accident',
]);
/** Amounts that may also be a split limit ("100000/300000"). */
const LIMITS = new Set(['limit', 'deductible']);
const YES_NO = new Set(['wc_statutory', 'additional_insured', 'subrogation_waived']);

export type ReviewedValue = { ok: true; value: string | number | boolean } | { ok: false; message: string };

const dollars = (s: string) => s.replace(/[$,\s]/g, '');
const isDay = (d: string) => {
  const t = Date.parse(`${d}T00:00:00Z`);
  return /^\d{4}-\d{2}-\d{2}$/.test(d) && !Number.isNaN(t) && new Date(t).toISOString().slice(0, 10) === d;
};

/** What kind of value a field holds, for the input's hint. */
export function fieldKind(pointer: string): 'date' | 'money' | 'limit' | 'policy_number' | 'yes_no' | 'year' | 'text' {
  const key = pointer.split('/').pop() ?? '';
  if (key.endsWith('_date')) return 'date';
  if (MONEY.has(key)) return 'money';
  if (LIMITS.has(key)) return 'limit';
  if (key === 'policy_number') return 'policy_number';
  if (YES_NO.has(key)) return 'yes_no';
  if (key === 'year') return 'year';
  return 'text';
}

export const fieldHints: Record<ReturnType<typeof fieldKind>, string> = {
  date: 'a date, YYYY-MM-DD',
  money: 'whole dollars, e.g. 1000000',
  limit: 'whole dollars, or a split limit such as 100000/300000',
  policy_number: 'as printed (letters, digits, spaces, - / .)',
  yes_no: 'yes or no',
  year: 'a year, e.g. 2021',
  text: 'as printed',
};

/** The typed value of a correction, checked by the field's schema; a message naming the expected form otherwise. */
export function reviewedValue(pointer: string, input: string): ReviewedValue {
  const s = input.trim();
  const kind = fieldKind(pointer);
  if (!s) return { ok: false, message: 'type the value as the document shows it, or choose “Not on the document”' };
  switch (kind) {
    case 'date': {
      const us = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(s);
      const d = us ? `${us[3]}-${us[1].padStart(2, '0')}-${us[2].padStart(2, '0')}` : s;
      return isDay(d) ? { ok: true, value: d } : { ok: false, message: `expected ${fieldHints.date}` };
    }
    case 'money': {
      const n = dollars(s);
      return /^\d{1,13}$/.test(n) ? { ok: true, value: Number(n) } : { ok: false, message: `expected ${fieldHints.money}` };
    }
    case 'limit': {
      const n = dollars(s);
      if (/^\d{1,13}$/.test(n)) return { ok: true, value: Number(n) };
      return /^\d{1,13}(\/\d{1,13}){1,2}$/.test(n) ? { ok: true, value: n } : { ok: false, message: `expected ${fieldHints.limit}` };
    }
    case 'policy_number':
      return /^[A-Za-z0-9][A-Za-z0-9 ./-]{1,39}$/.test(s)
        ? { ok: true, value: s }
        : { ok: false, message: `expected a policy number ${fieldHints.policy_number}` };
    case 'yes_no':
      if (/^(y|yes|true|x)$/i.test(s)) return { ok: true, value: true };
      if (/^(n|no|false)$/i.test(s)) return { ok: true, value: false };
      return { ok: false, message: `expected ${fieldHints.yes_no}` };
    case 'year': {
      const y = Number(s);
      return /^\d{4}$/.test(s) && y >= 1900 && y <= 2100 ? { ok: true, value: y } : { ok: false, message: `expected ${fieldHints.year}` };
    }
    default:
      return s.length <= 300 ? { ok: true, value: s.replace(/\s+/g, ' ') } : { ok: false, message: 'at most 300 characters' };
  }
}

/** The review form: the field, what to do with it and the typed value. */
export const reviewForm = z.object({
  pointer: z
    .string()
    .regex(/^(\/[a-z_0-9]+)+$/, 'a field of the extraction')
    .max(200),
  action: z.enum(['save', 'not_on_document']),
  value: z.string().max(4000).optional(),
});

/** The review queue's filters. */
export const reviewQueueQuery = z.object({
  agent: z
    .string()
    .regex(/^(\d{1,15})?$/, 'an agent id')
    .optional(),
  kind: z
    .string()
    .regex(/^[a-z_]{0,40}$/, 'a document kind')
    .optional(),
});
