// Statements of the one document-reading chain (documents__read, documents__ocr):
// a document is read once, whoever owns the reading (a policy's extraction, a lease analysis's side).
import type { StoredPage } from '../../pipelines/documents/index.ts';
import type { Queryable } from './types.ts';

/** Whose reading a document is: `policy` (its extraction), `lease` or `insurance` (its analysis's side). */
export type DocumentPurpose = 'policy' | 'lease' | 'insurance';

/** What a reading stage needs of its document, while the document's owner is processing. */
export interface ReadingWork {
  document_id: string;
  purpose: DocumentPurpose;
  /** The extraction or analysis that owns the reading. */
  owner_id: string;
  blob_key: string | null;
  content_type: string;
  size_bytes: number;
  page_count: number | null;
}

const workColumns = `document_id, purpose, owner_id, blob_key, content_type, size_bytes::float8 as size_bytes, page_count`;

/** The reading starts: its owner moves from queued to processing; undefined when the owner is finished or gone. */
export async function beginReading(c: Queryable, documentId: string): Promise<ReadingWork | undefined> {
  const { rows } = await c.query<ReadingWork>(`select ${workColumns} from app_private.begin_reading($1)`, [documentId]);
  return rows[0];
}

/** The document being read, while its owner is processing. */
export async function readingWork(c: Queryable, documentId: string): Promise<ReadingWork | undefined> {
  const { rows } = await c.query<ReadingWork>(`select ${workColumns} from app_private.reading_work($1)`, [documentId]);
  return rows[0];
}

/** Save the text layer and page count; queues OCR of each page without one, or the owner's continuation. */
export async function recordReadingText(c: Queryable, documentId: string, pageCount: number, pages: unknown[], needOcr: number[]): Promise<void> {
  await c.query('select app_private.record_reading_text($1, $2, $3, $4)', [documentId, pageCount, JSON.stringify(pages), needOcr]);
}

/** Save one OCR'd page and its engine, or the page's error; the last page in queues the owner's continuation. */
export async function recordReadingPage(
  c: Queryable,
  documentId: string,
  page: number,
  read: { content: unknown; engine: string } | { error: string },
): Promise<void> {
  const ok = 'content' in read;
  await c.query('select app_private.record_reading_page($1, $2, $3, $4, $5)', [
    documentId,
    page,
    ok ? JSON.stringify(read.content) : null,
    ok ? read.engine : null,
    ok ? null : read.error,
  ]);
}

/** The document cannot be read: its owner fails with a §7.2 code (and, for an extraction, the parsing method used). */
export async function failReading(c: Queryable, documentId: string, code: string, details: string, parsingMethod: string | null): Promise<void> {
  await c.query('select app_private.fail_reading($1, $2, $3, $4)', [documentId, code, details, parsingMethod]);
}

const pageColumns = 'page, state, content, engine, error';

/** Every page of a document read so far, in order. */
export async function documentPages(c: Queryable, documentId: string): Promise<StoredPage[]> {
  const { rows } = await c.query<StoredPage>(`select ${pageColumns} from app_private.document_pages where document_id = $1 order by page`, [documentId]);
  return rows;
}

/** One page of a document. */
export async function documentPage(c: Queryable, documentId: string, page: number): Promise<StoredPage | undefined> {
  const { rows } = await c.query<StoredPage>(`select ${pageColumns} from app_private.document_pages where document_id = $1 and page = $2`, [documentId, page]);
  return rows[0];
}
