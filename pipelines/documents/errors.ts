// Typed failures of the document pipeline. `code` is the SPEC §7.2 error code, so the HTTP layer can map
// a DocumentError to a status without knowing how the pipeline works inside.

export type DocumentErrorCode = 'bad_request' | 'payload_too_large' | 'extraction_failed' | 'internal_error';

/** HTTP status for each §7.2 code this pipeline can raise. */
export const documentErrorStatus: Record<DocumentErrorCode, number> = {
  bad_request: 400,
  payload_too_large: 413,
  extraction_failed: 422,
  internal_error: 500,
};

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
  get status(): number {
    return documentErrorStatus[this.code];
  }
  /** The §7.2 response body. */
  toBody(): { error: DocumentErrorCode; message: string; details?: string } {
    return this.details === undefined
      ? { error: this.code, message: this.message }
      : { error: this.code, message: this.message, details: this.details };
  }
}

export function isDocumentError(e: unknown): e is DocumentError {
  return e instanceof DocumentError;
}
