// What differs between the owners of a document's reading (documents__read, documents__ocr): how the document is
// read and how its failure is worded. A product that reads documents adds its purpose here and one branch in
// app_private.reading_done (the continuation it queues).
import type { JobHelpers } from 'graphile-worker';
import { failReading, type DocumentPurpose, type ReadingWork } from '../db/queries/readings.ts';
import { LOCATE_ABOVE_PAGES, type DocumentError, type ReadOptions } from '../pipelines/documents/index.ts';
import { analysisFailureMessage, analysisReadOptions } from '../pipelines/lease/index.ts';
import { taskBlobs, type TaskDeps } from './context.ts';

interface Reader {
  /** The read options of this purpose (a policy packet is located; a lease may run longer). */
  options(read: ReadOptions): ReadOptions;
  /** The stored failure details of a document the pipeline refused. */
  failure(err: DocumentError): string;
  /** The failure details when the stored file is gone. */
  unavailable: string;
}

const readers: Record<DocumentPurpose, Reader> = {
  policy: {
    options: (read) => ({ locateAbovePages: LOCATE_ABOVE_PAGES, ...read }),
    failure: (err) => err.details ?? err.message,
    unavailable: 'the stored document is no longer available',
  },
  lease: {
    options: (read) => analysisReadOptions(read, 'lease'),
    failure: (err) => analysisFailureMessage('lease', err),
    unavailable: 'the stored lease document is no longer available',
  },
  insurance: {
    options: (read) => analysisReadOptions(read, 'insurance'),
    failure: (err) => analysisFailureMessage('insurance', err),
    unavailable: 'the stored insurance document is no longer available',
  },
};

export const readerOf = (work: Pick<ReadingWork, 'purpose'>): Reader => readers[work.purpose];

/** The §7.2 code a refused document ends with (a file over a limit is the caller's bad request). */
export const failureCode = (err: DocumentError): string => (err.code === 'payload_too_large' ? 'bad_request' : err.code);

/**
 * The stored file of a document being read; when it is gone the reading fails (internal_error, in the words of its
 * reader) and this is undefined.
 */
export async function storedFileOrFail(deps: TaskDeps, helpers: JobHelpers, work: ReadingWork): Promise<Uint8Array | undefined> {
  const bytes = work.blob_key ? await taskBlobs(deps).get(work.blob_key) : undefined;
  if (!bytes) await helpers.withPgClient((c) => failReading(c, work.document_id, 'internal_error', readerOf(work).unavailable, null));
  return bytes;
}
