// Pagination of every list. Keyset (`keysetPage`): a page fetched with one row more than it shows, and the
// position of its last row as the next page's cursor: an opaque id cursor (v2 and the delivery logs), a time
// cursor (policy extractions, the dashboard's extractions and lease checks), or the plain id (the dashboard's
// other lists). Offset: page numbers with first/last/prev/next links and a meta block (v1 agents, SPEC §2.6).
import { badRequest, type ApiError } from './errors.ts';

const badCursor = () => badRequest('cursor is not a next_cursor returned by this API', [{ field: 'cursor', message: 'invalid cursor' }]);

export const encodeCursor = (id: number): string => Buffer.from(JSON.stringify({ id })).toString('base64url');

/** The id inside a `next_cursor`; anything else is a 400 naming the `cursor` parameter. */
export function decodeCursor(cursor: string): number {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { id?: unknown };
    if (typeof v.id === 'number' && Number.isSafeInteger(v.id) && v.id > 0) return v.id;
  } catch {}
  throw badCursor();
}

/**
 * A cursor over (created_at desc, id) for lists whose ids are UUIDs (policy extractions). `createdAt` is the
 * timestamp as Postgres wrote it (ISO 8601 with microseconds), not a Date, which would lose the microseconds.
 */
export const encodeTimeCursor = (createdAt: string, id: string): string => Buffer.from(JSON.stringify({ t: createdAt, id })).toString('base64url');

/** The time cursor of a row that carries its `created_key`. */
export const timeCursorOf = (row: { created_key: string; id: string }): string => encodeTimeCursor(row.created_key, row.id);

/** The position inside a time cursor; anything else is `refused` (by default a 400 naming the `cursor` parameter). */
export function decodeTimeCursor(cursor: string, refused: () => ApiError = badCursor): { t: string; id: string } {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { t?: unknown; id?: unknown };
    if (typeof v.t === 'string' && !Number.isNaN(Date.parse(v.t)) && typeof v.id === 'string' && /^[0-9a-f-]{36}$/.test(v.id)) return { t: v.t, id: v.id };
  } catch {}
  throw refused();
}

/**
 * A keyset page from `limit + 1` rows fetched newest first: the first `limit` rows and the cursor of the
 * next page (`cursorOf` its last row; by default the opaque id cursor) when the extra row shows there is one.
 */
export function keysetPage<R extends { id: number }>(rows: R[], limit: number): { page: R[]; nextCursor: string | null };
export function keysetPage<R>(rows: R[], limit: number, cursorOf: (row: R) => string): { page: R[]; nextCursor: string | null };
export function keysetPage<R>(rows: R[], limit: number, cursorOf = (row: R) => encodeCursor((row as { id: number }).id)) {
  const page = rows.slice(0, limit);
  return { page, nextCursor: rows.length > limit && page.length ? cursorOf(page[page.length - 1]) : null };
}

function pageUrl(base: string, query: Record<string, unknown>, page: number): string {
  const u = new URL(base);
  for (const [k, v] of Object.entries(query)) if (v !== undefined && k !== 'page') u.searchParams.set(k, String(v));
  u.searchParams.set('page', String(page));
  return u.toString();
}

/** The links and meta of page `page` of `total` items, `perPage` a page, `count` of them on this page. */
export function offsetPage(path: string, query: Record<string, unknown>, o: { page: number; perPage: number; total: number; count: number }) {
  const { page, perPage, total, count } = o;
  const lastPage = Math.max(1, Math.ceil(total / perPage));
  const from = count ? (page - 1) * perPage + 1 : null;
  return {
    links: {
      first: pageUrl(path, query, 1),
      last: pageUrl(path, query, lastPage),
      prev: page > 1 ? pageUrl(path, query, Math.min(page - 1, lastPage)) : null,
      next: page < lastPage ? pageUrl(path, query, page + 1) : null,
    },
    meta: { current_page: page, from, last_page: lastPage, path, per_page: perPage, to: from === null ? null : from + count - 1, total },
  };
}
