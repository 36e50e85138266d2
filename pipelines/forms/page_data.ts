// The hosted form page's data block: what the server renders into the page (http/pages/form_page.ts) and the
// browser script reads (web/form/page.ts). One definition, so the two cannot drift apart.
import type { FormStructure } from './schema.ts';

/** A file uploaded for a question, as an answer keeps it. */
export interface UploadedFile {
  upload_id: string;
  filename: string;
  content_type: string;
  size: number;
}

/** A form saved part-way, as a resume link reopens it. */
export interface PageDraft {
  /** Sent back with every save, upload and the submit of this draft (and the `resume` of its link). */
  resume_token: string;
  resume_url: string;
  expires_at: string;
  step: number;
  history: number[];
  /** Answers of every question but files, as the fields hold them. */
  values: Record<string, unknown>;
  /** The uploads the draft still holds, by question. */
  files: Record<string, UploadedFile[]>;
  client_key: string;
}

/** What the browser script reads from the page (a JSON block, never executed). */
export interface FormPageData {
  structure: FormStructure;
  snapshot_id: number;
  public_id: string;
  submit_url: string;
  upload_url: string;
  /** Where the page saves the answers as the consumer goes (a draft tied to the link). */
  draft_url: string;
  /** Signed link context (agent and metadata), sent back with uploads, draft saves and the submission. */
  ctx: string | null;
  /** The draft a resume link opened: restored into the fields, and saved to from then on. */
  draft: PageDraft | null;
  /** Origins that may frame the page; messages go only to one of them (or to this origin). */
  origins: string[];
  max_upload_bytes: number;
}
