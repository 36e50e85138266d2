// The hosted form's markup: every step and question rendered on the server (labels, help, error slots,
// the parts of an address, a data table's row template), so the page is readable at once; web/form.ts then
// runs the rule engine on it. Every input has a visible <label>; choices are fieldsets with a legend.
import type { Question, Step, TableColumn } from '../../pipelines/forms/schema.ts';
import { html, jsonForScript, raw, type SafeHtml } from './html.ts';
import type { FormPageData } from '../../pipelines/forms/page_data.ts';

export type { FormPageData, PageDraft } from '../../pipelines/forms/page_data.ts';

const qid = (q: { id: string }) => `q-${q.id}`;

function help(q: Question): SafeHtml | '' {
  return q.help_text ? html`<p class="field__help" id="${qid(q)}-help">${q.help_text}</p>` : '';
}

const describedBy = (q: Question) => [q.help_text ? `${qid(q)}-help` : '', `${qid(q)}-error`].filter(Boolean).join(' ');

/** Shown beside the label, not inside it: the label's text stays exactly the question (aria-required tells the rest). */
function requiredMark(): SafeHtml {
  return raw('<span class="field__req" aria-hidden="true">*</span><span class="field__opt" aria-hidden="true">(optional)</span>');
}

function errorSlot(id: string): SafeHtml {
  return html`<p class="field__error" id="${id}-error" hidden></p>`;
}

/** Autocomplete hints from what the question captures, so phones fill name, email and phone. */
function autocomplete(q: Question): string | undefined {
  const tail = q.acord_field?.slice(q.acord_field.lastIndexOf('.') + 1) ?? '';
  const id = q.id.toLowerCase();
  if (q.type === 'email') return 'email';
  if (tail === 'FirstName' || id === 'first_name') return 'given-name';
  if (tail === 'LastName' || id === 'last_name') return 'family-name';
  if (tail === 'FullName' || id === 'full_name') return 'name';
  if (tail === 'Phone' || /phone/.test(id)) return 'tel';
  if (tail === 'DateOfBirth' || id === 'date_of_birth') return 'bday';
  return undefined;
}

function scalarInput(q: Question): SafeHtml {
  const common = { id: qid(q), name: q.id, describedby: describedBy(q) };
  switch (q.type) {
    case 'long_text':
      return html`<textarea class="input" id="${common.id}" name="${common.name}" rows="4" maxlength="${q.settings?.max_length ?? 10000}" placeholder="${q.settings?.placeholder ?? ''}" aria-describedby="${common.describedby}"></textarea>`;
    case 'dropdown':
      return html`<select class="input" id="${common.id}" name="${common.name}" aria-describedby="${common.describedby}"><option value="">Choose…</option>${q.options.map((o) => html`<option value="${o}">${o}</option>`)}</select>`;
    case 'number': {
      const unit = q.settings?.unit;
      const input = html`<input class="input" id="${common.id}" name="${common.name}" type="text" inputmode="${q.settings?.integer ? 'numeric' : 'decimal'}" autocomplete="off" aria-describedby="${common.describedby}">`;
      return unit ? html`<div class="input-unit">${input}<span class="input-unit__unit">${unit}</span></div>` : input;
    }
    case 'date':
      return html`<input class="input input--date" id="${common.id}" name="${common.name}" type="date" min="${q.settings?.min ?? ''}" max="${q.settings?.max ?? ''}" autocomplete="${autocomplete(q) ?? 'off'}" aria-describedby="${common.describedby}">`;
    case 'email':
      return html`<input class="input" id="${common.id}" name="${common.name}" type="email" autocomplete="email" spellcheck="false" aria-describedby="${common.describedby}">`;
    default: {
      const ac = autocomplete(q);
      const settings = q.type === 'short_text' ? q.settings : undefined;
      return html`<input class="input" id="${common.id}" name="${common.name}" type="${ac === 'tel' ? 'tel' : 'text'}" maxlength="${settings?.max_length ?? 1000}" placeholder="${settings?.placeholder ?? ''}" autocomplete="${ac ?? 'off'}" aria-describedby="${common.describedby}">`;
    }
  }
}

const ADDRESS_PARTS: { key: string; label: string; autocomplete: string; cls?: string }[] = [
  { key: 'line1', label: 'Street address', autocomplete: 'address-line1' },
  { key: 'line2', label: 'Apartment, suite or unit', autocomplete: 'address-line2' },
  { key: 'city', label: 'City', autocomplete: 'address-level2', cls: 'grid__half' },
  { key: 'state', label: 'State', autocomplete: 'address-level1', cls: 'grid__quarter' },
  { key: 'postal_code', label: 'ZIP code', autocomplete: 'postal-code', cls: 'grid__quarter' },
  { key: 'county', label: 'County', autocomplete: 'off' },
];

function addressInputs(q: Extract<Question, { type: 'address' }>): SafeHtml {
  const parts = ADDRESS_PARTS.filter((p) => (p.key !== 'line2' || q.settings?.include_line2) && (p.key !== 'county' || q.settings?.include_county));
  return html`<div class="grid">${parts.map((p) => {
    const id = `${qid(q)}-${p.key}`;
    const optional = p.key === 'line2' || p.key === 'county';
    return html`<div class="grid__cell ${p.cls ?? 'grid__full'}"><label class="sublabel" for="${id}">${p.label}${optional ? html`<span class="field__opt-always"> (optional)</span>` : ''}</label><input class="input" id="${id}" data-part="${p.key}" type="text" autocomplete="${p.autocomplete}" aria-describedby="${qid(q)}-error"></div>`;
  })}</div>`;
}

function choiceInputs(q: Extract<Question, { type: 'single_choice' | 'multi_choice' }>): SafeHtml {
  const type = q.type === 'single_choice' ? 'radio' : 'checkbox';
  return html`<div class="choices${q.options.length <= 3 && q.options.every((o) => o.length <= 24) ? ' choices--inline' : ''}">${q.options.map((o, i) => {
    const id = `${qid(q)}-${i}`;
    return html`<div class="choice"><input class="choice__input" type="${type}" id="${id}" name="${q.id}" value="${o}" aria-describedby="${qid(q)}-error"><label class="choice__label" for="${id}">${o}</label></div>`;
  })}</div>`;
}

function cellInput(q: Question, col: TableColumn, index: string): SafeHtml {
  const id = `${qid(q)}-${index}-${col.id}`;
  const control =
    col.type === 'dropdown'
      ? html`<select class="input" id="${id}" data-col="${col.id}"><option value="">Choose…</option>${(col.options ?? []).map((o) => html`<option value="${o}">${o}</option>`)}</select>`
      : html`<input class="input" id="${id}" data-col="${col.id}" type="${col.type === 'date' ? 'date' : col.type === 'email' ? 'email' : 'text'}" ${raw(col.type === 'number' ? 'inputmode="decimal"' : '')} autocomplete="off">`;
  return html`<div class="grid__cell grid__half"><label class="sublabel" for="${id}">${col.label}${col.required ? '' : html`<span class="field__opt-always"> (optional)</span>`}</label>${control}<p class="field__error" id="${id}-error" hidden></p></div>`;
}

/** One row of a data table; `index` is a number, or `__i__` in the template the script clones. */
function tableRow(q: Extract<Question, { type: 'data_table' }>, index: string, ordinal: string): SafeHtml {
  return html`<div class="table-row" data-row="${index}"><div class="table-row__head"><span class="table-row__title">${rowNoun(q)} <span data-ordinal>${ordinal}</span></span><button type="button" class="link-button" data-remove-row>Remove<span class="visually-hidden"> ${rowNoun(q)} <span data-ordinal>${ordinal}</span></span></button></div><div class="grid">${q.settings.columns.map((c) => cellInput(q, c, index))}</div></div>`;
}

/** "Drivers" → "Driver"; a generic noun otherwise. */
function rowNoun(q: Extract<Question, { type: 'data_table' }>): string {
  const first = q.label.split(/\s+/).find((w) => /s$/i.test(w) && w.length > 3);
  return first
    ? first
        .replace(/ies$/i, 'y')
        .replace(/s$/i, '')
        .replace(/^./, (c) => c.toUpperCase())
    : 'Entry';
}

function tableInputs(q: Extract<Question, { type: 'data_table' }>): SafeHtml {
  const initial = Math.max(1, q.settings.min_rows ?? 0);
  return html`<div class="table" data-max-rows="${q.settings.max_rows ?? 100}" data-min-rows="${q.settings.min_rows ?? 0}"><div class="table__rows">${Array.from({ length: initial }, (_, i) => tableRow(q, String(i), String(i + 1)))}</div><template>${tableRow(q, '__i__', '__n__')}</template><button type="button" class="button button--ghost" data-add-row>+ Add ${rowNoun(q).toLowerCase()}</button></div>`;
}

function fileInputs(q: Extract<Question, { type: 'file_upload' }>): SafeHtml {
  const accept = q.settings?.accept?.join(',') ?? 'application/pdf,image/jpeg,image/png';
  const max = q.settings?.max_files ?? 1;
  return html`<div class="upload"><input class="upload__input" id="${qid(q)}" type="file" accept="${accept}" ${raw(max > 1 ? 'multiple' : '')} aria-describedby="${describedBy(q)} ${qid(q)}-hint"><p class="field__hint" id="${qid(q)}-hint">PDF, JPG or PNG, up to ${Math.round((q.settings?.max_file_bytes ?? 10 * 1024 * 1024) / 1024 / 1024)} MB${max > 1 ? html`, up to ${max} files` : ''}.</p><ul class="upload__list" aria-live="polite"></ul></div>`;
}

function question(q: Question): SafeHtml {
  const hidden = q.initially_hidden ? raw(' hidden') : '';
  const group = q.type === 'single_choice' || q.type === 'multi_choice' || q.type === 'address' || q.type === 'data_table';
  const attrs = html`class="field field--${q.type}" data-qid="${q.id}" data-type="${q.type}" data-required="${q.required ? 'true' : 'false'}"`;
  if (group) {
    const body = q.type === 'address' ? addressInputs(q) : q.type === 'data_table' ? tableInputs(q) : choiceInputs(q);
    return html`<fieldset ${attrs} id="${qid(q)}" aria-describedby="${describedBy(q)}"${hidden}><legend class="field__legend"><span class="field__label">${q.label}</span>${requiredMark()}</legend>${help(q)}${body}${errorSlot(qid(q))}</fieldset>`;
  }
  const body = q.type === 'file_upload' ? fileInputs(q) : scalarInput(q);
  return html`<div ${attrs}${hidden}><div class="field__head"><label class="field__label" for="${qid(q)}">${q.label}</label>${requiredMark()}</div>${help(q)}${body}${errorSlot(qid(q))}</div>`;
}

function step(s: Step, index: number): SafeHtml {
  return html`<section class="step" data-step="${index}" aria-labelledby="step-${index}-title"${index === 0 ? '' : raw(' hidden')}><h2 class="step__title" id="step-${index}-title" tabindex="-1">${s.name}</h2>${s.description ? html`<p class="step__description">${s.description}</p>` : ''}${s.questions.map(question)}</section>`;
}

/** The form card: title, progress, steps, buttons, the thank-you panel, and the data block for the script. */
export function formBody(o: { title: string; agentName: string; agencyName: string; data: FormPageData; testMode: boolean; resumed?: boolean }): SafeHtml {
  const steps = o.data.structure.steps;
  return html`<div class="card" id="form-card">
${o.testMode ? html`<p class="badge badge--test">Test mode: submissions go to the agency’s sandbox</p>` : ''}
<div class="progress" aria-hidden="true"><div class="progress__bar"></div></div>
<p class="progress__label" id="step-count" aria-live="polite">Step 1 of ${steps.length}</p>
<h1 class="card__title">${o.title}</h1>
${o.resumed ? html`<p class="resumed" id="resumed-note">Welcome back: your saved answers are filled in below.</p>` : ''}
<noscript><p class="notice">This form needs JavaScript to check your answers as you go. Please enable it, or contact ${o.agentName} at ${o.agencyName}.</p></noscript>
<form id="svc-form" class="form" novalidate>
<div class="error-summary" id="error-summary" role="alert" tabindex="-1" hidden></div>
${steps.map(step)}
<div class="actions"><button type="button" class="button button--secondary" data-action="back" hidden>Back</button><button type="submit" class="button button--primary" data-action="next">Next</button><button type="submit" class="button button--primary" data-action="submit" hidden>Submit</button></div>
<div class="later"><button type="button" class="later__button" data-action="save-later">Save and finish later</button><span class="later__state" id="draft-state"></span></div>
<p class="status" id="form-status" role="status" aria-live="polite"></p>
</form>
<section class="saved" id="form-saved" tabindex="-1" aria-labelledby="saved-title" hidden><h2 class="saved__title" id="saved-title">Your answers are saved</h2><p class="saved__text">Open this link to pick up where you left off, on this or another device. It works until <strong id="saved-until"></strong>.</p><div class="saved__link"><label class="sublabel" for="resume-link">Your link to this form</label><div class="saved__row"><input class="input saved__url" id="resume-link" type="url" readonly><button type="button" class="button button--secondary" data-action="copy-link">Copy link</button></div><p class="saved__copied" id="copy-state" role="status" aria-live="polite"></p></div><p class="saved__note">Anyone with this link can see your answers, so keep it to yourself.</p><button type="button" class="button button--secondary" data-action="keep-going">Keep going now</button></section>
<section class="done" id="form-done" tabindex="-1" hidden><div class="done__icon" aria-hidden="true">✓</div><h2 class="card__title">Thank you — we have your answers</h2><p class="lede">${o.agentName} at ${o.agencyName} will be in touch soon.</p><p class="done__ref">Reference <span id="submission-ref"></span></p></section>
</div>
<script type="application/json" id="form-data">${jsonForScript(o.data)}</script>`;
}
