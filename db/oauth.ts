// Moved to db/queries/oauth.ts; re-exported while branches that import this path are in flight.
export * from './queries/oauth.ts';
