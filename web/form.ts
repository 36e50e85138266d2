// The hosted form's browser script: reads the answers from the server-rendered fields, runs the form's own
// rule engine (pipelines/forms/engine.ts, unchanged) on every change to show, hide and require questions and
// to pick the next step, uploads files first, submits, and tells the parent frame what happens (SPEC §6.5).
// It also saves the answers to a draft on the server as the consumer goes (debounced, and at once on a step
// change or an upload), so "Save and finish later" can hand out a link that reopens the form anywhere.
// The server checks everything again; this script only makes the form pleasant and immediate.
import { evaluate, nextStep, validateSubmission, type Evaluation } from '../pipelines/forms/engine.ts';
import type { Question } from '../pipelines/forms/schema.ts';
import {
  $,
  $$,
  type DraftLink,
  type UploadedFile,
  type Saved,
  byId,
  data,
  structure,
  questions,
  form,
  steps,
  btnBack,
  btnNext,
  btnSubmit,
  status,
  stepCount,
  progressBar,
  files,
  newClientKey,
  fieldOf,
} from './form/page.ts';
import { post, reportHeight } from './form/parent.ts';
import { readAnswer, readAll, writeAnswer, renumber, addRow } from './form/answers.ts';
import { controlsOf, showError, clearError, clearAllErrors, questionOfPointer, showErrors, friendly } from './form/errors.ts';

let current = 0;
let history: number[] = [];
let submitting = false;
let uploadsInFlight = 0;
/** Drawn once per filled form and sent with every submit of it: a submit repeated after a lost answer returns the first submission. */
let clientKey = newClientKey();
/** The draft on the server this page saves to (made at the first change), with its resume link. */
let draftLink: DraftLink | null = data.draft
  ? { resume_token: data.draft.resume_token, resume_url: data.draft.resume_url, expires_at: data.draft.expires_at }
  : null;
let finished = false;

// ---- saving progress (a reload or a lost connection keeps answers and uploaded files) ------------------

const storageKey = `svc-form:${data.public_id}`;
function save(): void {
  try {
    const values: Record<string, unknown> = {};
    for (const { q } of questions.values()) if (q.type !== 'file_upload') values[q.id] = readAnswer(q);
    const saved: Saved = { snapshot_id: data.snapshot_id, current, history, values, files, client_key: clientKey, ...(draftLink ? { draft: draftLink } : {}) };
    sessionStorage.setItem(storageKey, JSON.stringify(saved));
  } catch {
    // private mode or full storage: the form still works, it just does not survive a reload
  }
}

const draftIdOf = (token: string | undefined) => token?.split('.')[0] ?? null;

function restore(): void {
  let saved: Saved | null = null;
  try {
    saved = JSON.parse(sessionStorage.getItem(storageKey) ?? 'null');
  } catch {
    saved = null;
  }
  if (saved && saved.snapshot_id !== data.snapshot_id) saved = null;
  if (data.draft) {
    // Opened from a resume link: the draft's answers, unless this tab holds newer ones of the same draft (a reload).
    const sameDraft = saved?.draft && draftIdOf(saved.draft.resume_token) === draftIdOf(data.draft.resume_token);
    if (!sameDraft) {
      const d = data.draft;
      saved = { snapshot_id: data.snapshot_id, current: d.step, history: d.history, values: d.values, files: d.files, client_key: d.client_key };
    }
  } else if (saved?.draft) draftLink = saved.draft;
  if (!saved) return;
  if (typeof saved.client_key === 'string' && /^[0-9a-f-]{36}$/.test(saved.client_key)) clientKey = saved.client_key;
  Object.assign(files, saved.files ?? {});
  for (const [id, v] of Object.entries(saved.values ?? {})) {
    const entry = questions.get(id);
    if (!entry || v === undefined || v === null) continue;
    writeAnswer(entry.q, v);
  }
  for (const id of Object.keys(files)) renderFiles(id);
  if (Number.isInteger(saved.current) && saved.current >= 0 && saved.current < steps.length) {
    current = saved.current;
    history = (saved.history ?? []).filter((i) => Number.isInteger(i) && i >= 0 && i < steps.length);
  }
}

// ---- the draft on the server (a resume link that works on any device) -----------------------------------

const draftState = byId('draft-state')!;
const btnLater = $<HTMLButtonElement>('[data-action="save-later"]', form)!;
const savedPanel = byId('form-saved')!;
/** Wait after the last keystroke before saving; a step change or an upload saves at once. */
const DRAFT_DEBOUNCE_MS = 1200;
let draftTimer: number | undefined;
let draftDirty = false;
let draftSaving: Promise<boolean> | null = null;
/** A refusal another save cannot fix (the draft was sent from elsewhere, the link was refused): stop saving. */
let draftStopped = false;

/** The answers as a draft keeps them: every field as typed, files by their upload ids. */
function draftAnswers(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [id, v] of Object.entries(readAll())) {
    out[id] = questions.get(id)?.q.type === 'file_upload' ? (v as UploadedFile[]).map((f) => ({ upload_id: f.upload_id })) : v;
  }
  return out;
}

function queueDraftSave(delay = DRAFT_DEBOUNCE_MS): void {
  if (finished || draftStopped) return;
  draftDirty = true;
  window.clearTimeout(draftTimer);
  draftTimer = window.setTimeout(() => void saveDraft(), delay);
}

/** Save now (one save at a time, in order); true once the server holds the answers as they are. */
async function saveDraft(): Promise<boolean> {
  window.clearTimeout(draftTimer);
  while (draftSaving) await draftSaving;
  if (finished || draftStopped) return false;
  if (!draftDirty && draftLink) return true;
  draftDirty = false;
  draftSaving = sendDraft();
  try {
    return await draftSaving;
  } finally {
    draftSaving = null;
  }
}

async function sendDraft(): Promise<boolean> {
  draftState.textContent = 'Saving…';
  const body = {
    snapshot_id: data.snapshot_id,
    ctx: data.ctx,
    resume: draftLink?.resume_token ?? null,
    client_key: clientKey,
    step: current,
    history,
    answers: draftAnswers(),
  };
  try {
    const res = await fetch(data.draft_url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const json = await res.json().catch(() => ({}));
    if (res.status === 200 || res.status === 201) {
      draftLink = json as DraftLink;
      save();
      draftState.textContent = 'Answers saved';
      return true;
    }
    if (res.status === 410 && draftLink) {
      // The draft outlived its lifetime while the page stayed open: the next save starts a new one.
      draftLink = null;
      draftDirty = true;
      draftState.textContent = '';
      return false;
    }
    if (res.status === 409 || res.status === 403) {
      draftStopped = true;
      draftState.textContent = res.status === 409 ? 'These answers were already sent.' : '';
      return false;
    }
    draftDirty = true;
    draftState.textContent = res.status === 413 ? 'Too long to save; your answers are kept on this page.' : 'Not saved yet; trying again at your next change.';
    return false;
  } catch {
    draftDirty = true;
    draftState.textContent = 'Not saved yet (no connection); trying again at your next change.';
    return false;
  }
}

async function saveForLater(): Promise<void> {
  if (uploadsInFlight > 0) {
    status.textContent = 'Please wait for your files to finish uploading.';
    return;
  }
  btnLater.disabled = true;
  draftDirty = true; // save even when nothing changed: the link then lasts from now
  let ok = await saveDraft();
  if (!ok && !draftLink && !draftStopped) ok = await saveDraft(); // an expired draft: once more, as a new one
  btnLater.disabled = false;
  if (!ok || !draftLink) {
    status.textContent = 'Your answers could not be saved just now. Please try again.';
    return;
  }
  status.textContent = '';
  const link = draftLink;
  byId<HTMLInputElement>('resume-link')!.value = link.resume_url;
  byId('saved-until')!.textContent = new Date(link.expires_at).toLocaleString(undefined, { dateStyle: 'long', timeStyle: 'short' });
  byId('copy-state')!.textContent = '';
  savedPanel.hidden = false;
  savedPanel.focus();
  savedPanel.scrollIntoView({ block: 'nearest' });
  post({ type: 'service:saved', resume_url: link.resume_url, expires_at: link.expires_at });
  requestAnimationFrame(reportHeight);
}

async function copyLink(): Promise<void> {
  const input = byId<HTMLInputElement>('resume-link')!;
  const state = byId('copy-state')!;
  try {
    await navigator.clipboard.writeText(input.value);
    state.textContent = 'Link copied.';
  } catch {
    input.focus();
    input.select();
    state.textContent = 'Press Ctrl+C (or ⌘C) to copy the selected link.';
  }
}

// ---- uploads (sent first; the answer keeps only the upload's id) --------------------------------------

function renderFiles(id: string): void {
  const field = fieldOf(id);
  const list = field && $<HTMLUListElement>('.upload__list', field);
  if (!list) return;
  list.replaceChildren(
    ...(files[id] ?? []).map((f, i) => {
      const li = document.createElement('li');
      li.className = 'upload__item';
      const name = document.createElement('span');
      name.className = 'upload__name';
      name.textContent = `${f.filename} (${Math.max(1, Math.round(f.size / 1024))} KB)`;
      const remove = document.createElement('button');
      remove.type = 'button';
      remove.className = 'link-button';
      remove.textContent = 'Remove';
      const hidden = document.createElement('span');
      hidden.className = 'visually-hidden';
      hidden.textContent = ` ${f.filename}`;
      remove.append(hidden);
      remove.addEventListener('click', () => {
        files[id].splice(i, 1);
        renderFiles(id);
        refresh();
        queueDraftSave(0);
      });
      li.append(name, remove);
      return li;
    }),
  );
}

async function upload(q: Extract<Question, { type: 'file_upload' }>, input: HTMLInputElement): Promise<void> {
  const picked = Array.from(input.files ?? []);
  input.value = '';
  const max = q.settings?.max_files ?? 1;
  const limit = Math.min(q.settings?.max_file_bytes ?? data.max_upload_bytes, data.max_upload_bytes);
  for (const file of picked) {
    if ((files[q.id]?.length ?? 0) >= max) {
      showError(q.id, max === 1 ? 'Only one file can be attached here. Remove the current one first.' : `At most ${max} files can be attached here.`);
      break;
    }
    if (file.size > limit) {
      showError(q.id, `${file.name} is larger than ${Math.round(limit / 1024 / 1024)} MB.`);
      continue;
    }
    const body = new FormData();
    body.append('question_id', q.id);
    if (data.ctx) body.append('ctx', data.ctx);
    if (draftLink) body.append('resume', draftLink.resume_token);
    body.append('file', file, file.name);
    uploadsInFlight++;
    status.textContent = `Uploading ${file.name}…`;
    try {
      const res = await fetch(data.upload_url, { method: 'POST', body });
      const json = await res.json().catch(() => ({}));
      if (res.status !== 201) {
        showError(q.id, json.detail ?? 'The file could not be uploaded. Please try again.');
        continue;
      }
      (files[q.id] ??= []).push(json as UploadedFile);
      clearError(q.id);
      renderFiles(q.id);
      queueDraftSave(0);
      status.textContent = `${(json as UploadedFile).filename} uploaded.`;
    } catch {
      showError(q.id, 'The connection failed while uploading. Please try again.');
    } finally {
      uploadsInFlight--;
    }
  }
  if (uploadsInFlight === 0 && status.textContent?.startsWith('Uploading')) status.textContent = '';
  refresh();
}

// ---- logic and navigation -----------------------------------------------------------------------------

let evaluation: Evaluation = evaluate(structure, {});

function refresh(): void {
  const answers = readAll();
  evaluation = evaluate(structure, answers);
  for (const [id, { step }] of questions) {
    const field = fieldOf(id);
    const state = evaluation.questions[id];
    if (!field || !state) continue;
    const shown = state.shown;
    if (field.hidden === shown) field.hidden = !shown;
    // The step on screen counts as walked even if the answers no longer lead to it (e.g. restored progress).
    const required = shown && (state.required || (step === current && questions.get(id)!.q.required));
    field.classList.toggle('field--required', required);
    for (const el of controlsOf(id)) {
      if (el.dataset.part === 'line2' || el.dataset.part === 'county') continue;
      if (el.closest('.table-row')) continue;
      if (required) el.setAttribute('aria-required', 'true');
      else el.removeAttribute('aria-required');
    }
    if (!shown) clearError(id);
  }
  const next = nextStep(structure, answers, current);
  const last = next.kind === 'end';
  btnNext.hidden = last;
  btnSubmit.hidden = !last;
  btnBack.hidden = history.length === 0;
  // Steps still ahead follow from the answers so far (skips and early ends shorten the walk).
  const position = history.length + 1;
  const at = evaluation.path.indexOf(current);
  const total = at >= 0 ? position + evaluation.path.length - at - 1 : position;
  const label = `Step ${position} of ${total}`;
  if (stepCount.textContent !== label) stepCount.textContent = label; // a live region: only real changes are announced
  if (progressBar) progressBar.style.width = `${Math.round((position / total) * 100)}%`;
  save();
  requestAnimationFrame(reportHeight);
}

/** Errors of the questions on the current step (what Next checks). */
function stepErrors(answers: Record<string, unknown>): { question_id: string; message: string }[] {
  const check = validateSubmission(structure, answers);
  return check.errors.filter((e) => questions.get(e.question_id)?.step === current).map(friendly);
}

function show(index: number, focus: boolean): void {
  steps.forEach((s, i) => (s.hidden = i !== index));
  current = index;
  clearAllErrors();
  refresh();
  if (focus) {
    byId(`step-${index}-title`)?.focus();
    window.scrollTo({ top: 0 });
  }
}

function goNext(): void {
  const answers = readAll();
  const errors = stepErrors(answers);
  if (errors.length) {
    showErrors(errors);
    return;
  }
  const next = nextStep(structure, answers, current);
  if (next.kind === 'end') {
    void submit();
    return;
  }
  history.push(current);
  show(next.index, true);
  post({ type: 'service:step', index: next.index, total: steps.length });
  queueDraftSave(0);
}

function goBack(): void {
  const prev = history.pop();
  if (prev === undefined) return;
  show(prev, true);
  post({ type: 'service:step', index: prev, total: steps.length });
  queueDraftSave(0);
}

async function submit(): Promise<void> {
  if (submitting) return;
  if (uploadsInFlight > 0) {
    status.textContent = 'Please wait for your files to finish uploading.';
    return;
  }
  const answers = readAll();
  const errors = stepErrors(answers);
  if (errors.length) {
    showErrors(errors);
    return;
  }
  submitting = true;
  btnSubmit.disabled = true;
  window.clearTimeout(draftTimer); // the submission supersedes the draft
  status.textContent = 'Sending your answers…';
  // Files travel as the ids of their uploads; everything else as typed.
  const body: Record<string, unknown> = {};
  for (const [id, v] of Object.entries(answers)) {
    body[id] = questions.get(id)?.q.type === 'file_upload' ? (v as UploadedFile[]).map((f) => ({ upload_id: f.upload_id })) : v;
  }
  try {
    const res = await fetch(data.submit_url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ snapshot_id: data.snapshot_id, answers: body, ctx: data.ctx, client_key: clientKey, resume: draftLink?.resume_token ?? null }),
    });
    const json = await res.json().catch(() => ({}));
    if (res.status === 201) {
      done(json.submission_id as number);
      return;
    }
    if (res.status === 410 && draftLink) {
      // The saved copy expired while the page stayed open: send the answers on this page without it.
      draftLink = null;
      submitting = false;
      await submit();
      return;
    }
    if (res.status === 422 && Array.isArray(json.errors)) {
      const list = (json.errors as { pointer?: string; detail: string }[])
        .map((e) => ({ question_id: questionOfPointer(e.pointer ?? '') ?? '', message: e.detail }))
        .filter((e) => e.question_id);
      if (list.length) {
        const step = questions.get(list[0].question_id)!.step;
        if (step !== current) {
          history = history.filter((i) => i < step);
          show(step, false);
        }
        showErrors(list);
        status.textContent = '';
        return;
      }
    }
    status.textContent = json.detail ? String(json.detail) : 'Your answers could not be sent. Please try again.';
  } catch {
    status.textContent = 'The connection failed. Your answers are kept on this page; please try again.';
  } finally {
    submitting = false;
    btnSubmit.disabled = false;
  }
}

function done(submissionId: number): void {
  finished = true;
  window.clearTimeout(draftTimer);
  byId('form-saved')!.hidden = true;
  try {
    sessionStorage.removeItem(storageKey);
  } catch {
    // nothing saved
  }
  form.hidden = true;
  for (const el of $$('.progress, .progress__label')) el.hidden = true;
  byId('submission-ref')!.textContent = String(submissionId);
  const panel = byId('form-done')!;
  panel.hidden = false;
  panel.focus();
  window.scrollTo({ top: 0 });
  post({ type: 'service:completed', submission_id: submissionId });
  requestAnimationFrame(reportHeight);
}

// ---- wiring ---------------------------------------------------------------------------------------------

// An error clears as soon as the consumer edits its field (while typing, not on blur: a layout shift on
// blur would move the next control away from under the pointer).
form.addEventListener('input', (ev) => {
  const id = (ev.target as HTMLElement).closest<HTMLElement>('.field')?.dataset.qid;
  if (id && fieldOf(id)?.classList.contains('field--invalid')) clearError(id);
  refresh();
  queueDraftSave();
});
form.addEventListener('change', (ev) => {
  const el = ev.target as HTMLInputElement;
  if (el.type === 'file') {
    const id = el.closest<HTMLElement>('.field')?.dataset.qid;
    const q = id ? questions.get(id)?.q : undefined;
    if (q?.type === 'file_upload') void upload(q, el);
    return;
  }
  refresh();
  queueDraftSave();
});
form.addEventListener('click', (ev) => {
  const el = ev.target as HTMLElement;
  const add = el.closest<HTMLButtonElement>('[data-add-row]');
  if (add) {
    addRow(add.closest<HTMLElement>('.table')!, true);
    refresh();
    queueDraftSave();
    return;
  }
  const remove = el.closest<HTMLButtonElement>('[data-remove-row]');
  if (remove) {
    const table = remove.closest<HTMLElement>('.table')!;
    remove.closest('.table-row')!.remove();
    renumber(table);
    $<HTMLButtonElement>('[data-add-row]', table)?.focus();
    refresh();
    queueDraftSave();
    return;
  }
  if (el.closest('[data-action="back"]')) goBack();
  if (el.closest('[data-action="save-later"]')) void saveForLater();
});
savedPanel.addEventListener('click', (ev) => {
  const el = ev.target as HTMLElement;
  if (el.closest('[data-action="copy-link"]')) void copyLink();
  if (el.closest('[data-action="keep-going"]')) {
    savedPanel.hidden = true;
    btnLater.focus();
    requestAnimationFrame(reportHeight);
  }
});
form.addEventListener('submit', (ev) => {
  ev.preventDefault();
  const submitter = (ev as SubmitEvent).submitter as HTMLButtonElement | null;
  if (submitter?.dataset.action === 'submit') void submit();
  else goNext();
});

for (const table of $$<HTMLElement>('.table', form)) renumber(table);
restore();
show(current, false);
post({ type: 'service:loaded' });
if ('ResizeObserver' in window) new ResizeObserver(() => reportHeight()).observe(document.documentElement);
reportHeight();
