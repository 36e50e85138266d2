// Moved to http/pagination.ts; re-exported while branches that import this path are in flight.
export { decodeCursor, encodeCursor } from './pagination.ts';
