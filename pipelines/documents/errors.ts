// Typed failures of the document pipeline. `code` is the SPEC §7.2 error code; the HTTP layer
// (http/errors.ts fromDocumentError) maps it to a status and a body, the CLI to an exit code.

export type DocumentErrorCode = 'bad_request' | 'payload_too_large' | 'extraction_failed' | 'internal_error';

/** A document the pipeline refuses or cannot read; `details` is safe to show to the caller. */
export class DocumentError extends Error {
  readonly code: DocumentErrorCode;
  readonly details: string | undefined;
  /** Short machine reason inside the code, e.g. `encrypted`, `too_many_pages`, `corrupt`. */
  readonly reason: string;
  constructor(code: DocumentErrorCode, reason: string, message: string, details?: string) {
    super(message);
    this.name = 'DocumentError';
    this.code = code;
    this.reason = reason;
    this.details = details;
  }
}
