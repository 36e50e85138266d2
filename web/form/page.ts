// The hosted form page's data and elements, shared by the parts of its script: what the server rendered (the
// structure, the draft, the registered origins) and the form's controls.
import type { Question } from '../../pipelines/forms/schema.ts';
import type { FormPageData as PageData, PageDraft, UploadedFile } from '../../pipelines/forms/page_data.ts';

export type { PageData, PageDraft, UploadedFile };

/** The server's answer to a draft save. */
export interface DraftLink {
  resume_token: string;
  resume_url: string;
  expires_at: string;
}

export interface Saved {
  snapshot_id: number;
  current: number;
  history: number[];
  values: Record<string, unknown>;
  files: Record<string, UploadedFile[]>;
  client_key?: string;
  /** The draft this tab saves to, once it has one. */
  draft?: DraftLink;
}

export const $ = <T extends Element = HTMLElement>(sel: string, root: ParentNode = document) => root.querySelector<T & Element>(sel) as T | null;
export const $$ = <T extends Element = HTMLElement>(sel: string, root: ParentNode = document) => Array.from(root.querySelectorAll(sel)) as T[];
export const byId = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T | null;

export const data = JSON.parse(byId('form-data')!.textContent!) as PageData;
export const structure = data.structure;
export const questions = new Map<string, { q: Question; step: number }>();
structure.steps.forEach((s, i) => s.questions.forEach((q) => questions.set(q.id, { q, step: i })));

export const form = byId<HTMLFormElement>('svc-form')!;
export const steps = $$<HTMLElement>('.step', form);
export const btnBack = $<HTMLButtonElement>('[data-action="back"]', form)!;
export const btnNext = $<HTMLButtonElement>('[data-action="next"]', form)!;
export const btnSubmit = $<HTMLButtonElement>('[data-action="submit"]', form)!;
export const summary = byId('error-summary')!;
export const status = byId('form-status')!;
export const stepCount = byId('step-count')!;
export const progressBar = $<HTMLElement>('.progress__bar');

export const files: Record<string, UploadedFile[]> = {};

/** A random UUIDv4; getRandomValues works on plain-http pages too, where randomUUID does not exist. */
export function newClientKey(): string {
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export const fieldOf = (id: string) => form.querySelector<HTMLElement>(`.field[data-qid="${CSS.escape(id)}"]`);
export const inputOf = (id: string) => byId<HTMLInputElement>(`q-${id}`);
