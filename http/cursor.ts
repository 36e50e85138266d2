// Opaque keyset cursors of the list endpoints: the id of the last item of a page, base64url-wrapped.
import { ApiError } from './errors.ts';

export const encodeCursor = (id: number): string => Buffer.from(JSON.stringify({ id })).toString('base64url');

/** The id inside a `next_cursor`; anything else is a 400 naming the `cursor` parameter. */
export function decodeCursor(cursor: string): number {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { id?: unknown };
    if (typeof v.id === 'number' && Number.isSafeInteger(v.id) && v.id > 0) return v.id;
  } catch {}
  throw new ApiError(400, 'cursor is not a next_cursor returned by this API', [{ field: 'cursor', message: 'invalid cursor' }]);
}
