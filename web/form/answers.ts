// Answers read from the server-rendered fields and written back into them (a restored or resumed form), with the
// data tables' rows.
import type { Question } from '../../pipelines/forms/schema.ts';
import { $, $$, questions, files, fieldOf, inputOf } from './page.ts';

export function readTable(field: HTMLElement, q: Extract<Question, { type: 'data_table' }>): Record<string, string>[] {
  return $$<HTMLElement>('.table__rows > .table-row', field).map((row) => {
    const out: Record<string, string> = {};
    for (const col of q.settings.columns) {
      const el = $<HTMLInputElement>(`[data-col="${CSS.escape(col.id)}"]`, row);
      if (el && el.value.trim() !== '') out[col.id] = el.value;
    }
    return out;
  });
}

export function readAnswer(q: Question): unknown {
  const field = fieldOf(q.id);
  if (!field) return undefined;
  switch (q.type) {
    case 'single_choice':
      return $<HTMLInputElement>('input:checked', field)?.value;
    case 'multi_choice': {
      const picked = $$<HTMLInputElement>('input:checked', field).map((i) => i.value);
      return picked.length ? picked : undefined;
    }
    case 'address': {
      const out: Record<string, string> = {};
      for (const el of $$<HTMLInputElement>('[data-part]', field)) if (el.value.trim()) out[el.dataset.part!] = el.value;
      return Object.keys(out).length ? out : undefined;
    }
    case 'data_table': {
      const rows = readTable(field, q);
      return rows.some((r) => Object.keys(r).length) ? rows : undefined;
    }
    case 'file_upload':
      return files[q.id]?.length ? files[q.id] : undefined;
    default: {
      const el = inputOf(q.id);
      return el && el.value.trim() !== '' ? el.value : undefined;
    }
  }
}

export function readAll(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { q } of questions.values()) {
    const v = readAnswer(q);
    if (v !== undefined) out[q.id] = v;
  }
  return out;
}

export function writeAnswer(q: Question, v: unknown): void {
  const field = fieldOf(q.id);
  if (!field) return;
  if (q.type === 'single_choice') for (const el of $$<HTMLInputElement>('input', field)) el.checked = el.value === v;
  else if (q.type === 'multi_choice') for (const el of $$<HTMLInputElement>('input', field)) el.checked = Array.isArray(v) && v.includes(el.value);
  else if (q.type === 'address' && v && typeof v === 'object')
    for (const el of $$<HTMLInputElement>('[data-part]', field)) el.value = String((v as Record<string, unknown>)[el.dataset.part!] ?? '');
  else if (q.type === 'data_table' && Array.isArray(v)) {
    const table = $<HTMLElement>('.table', field)!;
    while ($$('.table__rows > .table-row', table).length < v.length) addRow(table, false);
    $$<HTMLElement>('.table__rows > .table-row', table).forEach((row, i) => {
      for (const el of $$<HTMLInputElement>('[data-col]', row)) el.value = String((v[i] as Record<string, unknown> | undefined)?.[el.dataset.col!] ?? '');
    });
  } else if (typeof v === 'string') {
    const el = inputOf(q.id);
    if (el) el.value = v;
  }
}

export function renumber(table: HTMLElement): void {
  const rows = $$<HTMLElement>('.table__rows > .table-row', table);
  const min = Math.max(1, Number(table.dataset.minRows ?? 0));
  rows.forEach((row, i) => {
    for (const o of $$('[data-ordinal]', row)) o.textContent = String(i + 1);
    const remove = $<HTMLButtonElement>('[data-remove-row]', row)!;
    remove.hidden = rows.length <= min;
  });
  const add = $<HTMLButtonElement>('[data-add-row]', table)!;
  add.hidden = rows.length >= Number(table.dataset.maxRows ?? 100);
}

let rowSeq = 1000;
export function addRow(table: HTMLElement, focus: boolean): void {
  const tpl = $<HTMLTemplateElement>('template', table)!;
  const index = String(rowSeq++);
  const markup = tpl.innerHTML.replace(/__i__/g, index).replace(/__n__/g, '');
  const holder = document.createElement('div');
  holder.innerHTML = markup;
  const row = holder.firstElementChild as HTMLElement;
  $<HTMLElement>('.table__rows', table)!.append(row);
  renumber(table);
  if (focus) $<HTMLInputElement>('input, select', row)?.focus();
}
