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

/** A cursor over (created_at desc, id) for lists whose ids are UUIDs. */
export const encodeTimeCursor = (createdAt: Date, id: string): string => Buffer.from(JSON.stringify({ t: createdAt.toISOString(), id })).toString('base64url');

/** The position inside a time cursor; anything else is a 400 naming the `cursor` parameter. */
export function decodeTimeCursor(cursor: string): { t: string; id: string } {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { t?: unknown; id?: unknown };
    if (typeof v.t === 'string' && !Number.isNaN(Date.parse(v.t)) && typeof v.id === 'string' && /^[0-9a-f-]{36}$/.test(v.id)) return { t: v.t, id: v.id };
  } catch {}
  throw new ApiError(400, 'cursor is not a next_cursor returned by this API', [{ field: 'cursor', message: 'invalid cursor' }]);
}
