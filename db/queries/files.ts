// SQL of the signed-file route (http/routes/files.ts).
import type { Client as Queryable } from './types.ts';

/**
 * Whether a blob is listed for deletion (its client was erased or its document expired): its links stop working
 * at the commit that listed it, before the sweep has deleted the bytes.
 */
export async function blobListedForDeletion(db: Queryable, blobKey: string): Promise<boolean> {
  const { rows } = await db.query({ name: 'files_blob_listed', text: 'select 1 from app_private.expired_blobs where blob_key = $1', values: [blobKey] });
  return rows.length > 0;
}
