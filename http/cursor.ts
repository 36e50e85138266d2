// Moved to http/pagination.ts; re-exported while branches that import this path are in flight.
// The time cursors below came with the extraction API (lists whose ids are UUIDs).
import { ApiError } from './errors.ts';

export { decodeCursor, encodeCursor } from './pagination.ts';

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
