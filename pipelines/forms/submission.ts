// From checked answers to what a submission stores and what partners receive (SPEC §6.3). Pure: links are
// signed by a function the caller passes, so the webhook task and GET /v2/submissions/{id} share one shape.
import type { FormStructure, Question } from './schema.ts';

/** A file answer as stored: the upload it came from, never a URL (links are signed when presented). */
export interface StoredFile {
  filename: string;
  content_type: string;
  size: number;
  blob_key: string;
  upload_id: string;
}

export interface StoredAnswer {
  question_id: string;
  label: string;
  type: Question['type'];
  value: unknown;
}

/** The checked answers (validateSubmission().answers) in form order, each with its label and type. */
export function storedAnswers(structure: FormStructure, checked: Readonly<Record<string, unknown>>): StoredAnswer[] {
  const out: StoredAnswer[] = [];
  for (const step of structure.steps) {
    for (const q of step.questions) {
      if (!Object.hasOwn(checked, q.id)) continue;
      let value = checked[q.id];
      if (q.type === 'file_upload' && Array.isArray(value)) {
        value = value.map((f: Partial<StoredFile>) => ({
          filename: String(f.filename),
          content_type: String(f.content_type),
          size: Number(f.size),
          blob_key: String(f.blob_key),
          upload_id: String(f.upload_id),
        }));
      }
      out.push({ question_id: q.id, label: q.label, type: q.type, value });
    }
  }
  return out;
}

const fieldTail = (q: Question) => (q.acord_field ? q.acord_field.slice(q.acord_field.lastIndexOf('.') + 1) : '');

/** The consumer's name, email and phone from the questions that capture them (by ACORD field, id or label). */
export function contactOf(structure: FormStructure, checked: Readonly<Record<string, unknown>>): { name?: string; email?: string; phone?: string } | null {
  const questions = structure.steps.flatMap((s) => s.questions).filter((q) => Object.hasOwn(checked, q.id) && typeof checked[q.id] === 'string');
  const text = (q: Question | undefined) => (q ? String(checked[q.id]).trim() : undefined);
  const find = (test: (q: Question) => boolean) => questions.find(test);
  const first = find((q) => fieldTail(q) === 'FirstName' || /^(first_name|firstname|given_name)$/i.test(q.id));
  const last = find((q) => fieldTail(q) === 'LastName' || /^(last_name|lastname|surname|family_name)$/i.test(q.id));
  const full = find(
    (q) => fieldTail(q) === 'FullName' || /^(full_name|name|your_name|contact_name)$/i.test(q.id) || /^(full name|your name|name)\??$/i.test(q.label),
  );
  const email = find((q) => q.type === 'email') ?? find((q) => fieldTail(q) === 'Email');
  const phone = find((q) => fieldTail(q) === 'Phone' || /phone/i.test(q.id) || /phone/i.test(q.label));
  const name = [text(first), text(last)].filter(Boolean).join(' ') || text(full);
  const out: { name?: string; email?: string; phone?: string } = {};
  if (name) out.name = name;
  if (email) out.email = text(email);
  if (phone) out.phone = text(phone);
  return Object.keys(out).length ? out : null;
}

/** What the presenter needs of a stored submission (db/queries/submissions.ts SubmissionRow fits). */
export interface SubmissionRecord {
  id: number;
  form_id: number;
  public_id: string;
  form_name: string;
  insurance_line: string;
  agent_id: number;
  agent_first_name: string;
  agent_last_name: string;
  agent_email: string;
  trace_id: string;
  answers: StoredAnswer[] | { question_id: string; label: string; type: string; value: unknown }[];
  contact: { name?: string; email?: string; phone?: string } | null;
  metadata: Record<string, unknown>;
  acord_form_ids: string[];
  acord_archive_key: string | null;
  submitted_at: Date;
}

/** Signs a link to a stored file for download under `filename`. */
export type SignFile = (blobKey: string, filename: string) => string;

/** The `data` of a form-submission delivery (§6.3), with freshly signed file and archive links. */
export function submissionData(s: SubmissionRecord, sign: SignFile, acordReady = s.acord_archive_key !== null) {
  const answers = s.answers.map((a) => ({
    question_id: a.question_id,
    label: a.label,
    type: a.type,
    value:
      a.type === 'file_upload' && Array.isArray(a.value)
        ? (a.value as StoredFile[]).map((f) => ({ filename: f.filename, content_type: f.content_type, url: sign(f.blob_key, f.filename) }))
        : a.value,
  }));
  return {
    form: { id: s.form_id, public_id: s.public_id, name: s.form_name, insurance_line: s.insurance_line },
    submission_id: s.id,
    trace_id: s.trace_id,
    submitted_at: s.submitted_at.toISOString(),
    agent: { id: s.agent_id, name: `${s.agent_first_name} ${s.agent_last_name}`, email: s.agent_email },
    ...(s.contact ? { contact: s.contact } : {}),
    answers,
    ...(s.acord_form_ids.length && acordReady && s.acord_archive_key
      ? { acord: { is_acord_ready: true, form_ids: s.acord_form_ids, archive_url: sign(s.acord_archive_key, `acord-submission-${s.id}.zip`) } }
      : {}),
    metadata: s.metadata,
  };
}
