// What every handler reaches through the Koa context: the service's dependencies, the request's open
// transaction (as the caller's identity, under RLS) and that identity.
import type { Context } from 'koa';
import type pg from 'pg';
import type { BlobStore } from '../lib/blobs.ts';
import type { Config } from '../lib/config.ts';
import type { Logger } from '../lib/log.ts';
import type { Metrics } from '../lib/metrics.ts';
import { beginAs, commit, rollback, type Database, type Identity } from '../db/pool.ts';

export interface Deps {
  db: Database;
  cfg: Config;
  log: Logger;
  blobs: BlobStore;
  /** Encrypts webhook signing secrets and endpoint credentials at rest (lib/crypto.ts). */
  secretKey: Buffer;
  /** Prometheus metrics of this process; createApp makes one when absent (share it with the worker). */
  metrics?: Metrics;
}

/** The transaction of the current request, opened by the auth step as the caller's identity. */
export function tx(ctx: Context): pg.PoolClient {
  const client = ctx.state.tx as pg.PoolClient | undefined;
  if (!client) throw new Error('no request transaction: the route must declare auth');
  return client;
}

/**
 * Run `fn` in the request's one transaction: begun on `client` as `who`, tx(ctx) while `fn` runs, committed when it
 * returns, rolled back when it throws (and the error thrown on). The API's auth step and dashboard sessions use it.
 */
export async function inRequestTransaction(ctx: Context, db: Database, client: pg.PoolClient, who: Identity, fn: () => Promise<void>): Promise<void> {
  await beginAs(db, client, { ...who, requestId: ctx.state.requestId });
  ctx.state.tx = client;
  try {
    await fn();
    await commit(client);
  } catch (err) {
    await rollback(client);
    throw err;
  } finally {
    ctx.state.tx = undefined;
  }
}

/**
 * Work the handler leaves for after its transaction: run once the request's transaction is committed and its
 * connection released (waiting for workers to finish what the handler queued). It may set the answer or throw.
 */
export function afterCommit(ctx: Context, fn: () => Promise<void>): void {
  ((ctx.state.afterCommit as (() => Promise<void>)[] | undefined) ??= []).push(fn);
}

/** The caller, as authenticated by the route's auth step. */
export function identity(ctx: Context): Identity {
  return ctx.state.identity as Identity;
}
