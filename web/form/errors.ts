// Errors shown beside their questions and in a summary that links to each, in words a consumer reads.
import { type SubmissionError } from '../../pipelines/forms/engine.ts';
import { $$, byId, questions, summary, fieldOf } from './page.ts';

export function controlsOf(id: string): HTMLElement[] {
  const field = fieldOf(id);
  return field ? $$<HTMLElement>('input:not([type=hidden]), select, textarea', field) : [];
}

export function showError(id: string, message: string): void {
  const slot = byId(`q-${id}-error`);
  const field = fieldOf(id);
  if (!slot || !field) return;
  slot.textContent = message;
  slot.hidden = false;
  field.classList.add('field--invalid');
  for (const el of controlsOf(id)) el.setAttribute('aria-invalid', 'true');
}

export function clearError(id: string): void {
  const slot = byId(`q-${id}-error`);
  const field = fieldOf(id);
  if (slot) {
    slot.hidden = true;
    slot.textContent = '';
  }
  field?.classList.remove('field--invalid');
  for (const el of controlsOf(id)) el.removeAttribute('aria-invalid');
}

export function clearAllErrors(): void {
  for (const id of questions.keys()) clearError(id);
  summary.hidden = true;
  summary.replaceChildren();
}

/** The message for a question id from an error pointer `/answers/<id>/...`. */
export const questionOfPointer = (pointer: string) => {
  const id = pointer.split('/')[2]?.replace(/~1/g, '/').replace(/~0/g, '~');
  return id && questions.has(id) ? id : null;
};

export function showErrors(errors: { question_id: string; message: string }[]): void {
  clearAllErrors();
  const seen = new Set<string>();
  for (const e of errors) {
    if (seen.has(e.question_id)) continue;
    seen.add(e.question_id);
    const label = questions.get(e.question_id)?.q.label ?? '';
    showError(e.question_id, e.message.startsWith(`${label}: `) ? e.message.slice(label.length + 2) : e.message);
  }
  const heading = document.createElement('h2');
  heading.className = 'error-summary__title';
  heading.textContent = seen.size === 1 ? 'One answer needs attention' : `${seen.size} answers need attention`;
  const list = document.createElement('ul');
  for (const id of seen) {
    const li = document.createElement('li');
    const a = document.createElement('a');
    a.href = `#q-${id}`;
    a.textContent = questions.get(id)?.q.label ?? id;
    a.addEventListener('click', (ev) => {
      ev.preventDefault();
      (controlsOf(id)[0] ?? fieldOf(id))?.focus();
    });
    li.append(a);
    list.append(li);
  }
  summary.replaceChildren(heading, list);
  summary.hidden = false;
  summary.focus();
}

/** Engine errors as the consumer reads them: "This question is required" rather than a code. */
export function friendly(e: SubmissionError): { question_id: string; message: string } {
  if (e.code === 'required') {
    const sub = e.path.split('/').slice(3);
    const q = questions.get(e.question_id)?.q;
    if (q?.type === 'address' && sub.length)
      return { question_id: e.question_id, message: `Enter the ${sub[0] === 'postal_code' ? 'ZIP code' : sub[0] === 'line1' ? 'street address' : sub[0]}.` };
    if (q?.type === 'data_table' && sub.length) return { question_id: e.question_id, message: e.message.replace(/^[^:]+: /, '') };
    return {
      question_id: e.question_id,
      message:
        q?.type === 'file_upload' ? 'Attach a file.' : q?.type === 'single_choice' || q?.type === 'dropdown' ? 'Choose an answer.' : 'Answer this question.',
    };
  }
  return { question_id: e.question_id, message: e.message };
}
