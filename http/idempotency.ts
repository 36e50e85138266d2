// Idempotency-Key on /v2 writes (SPEC §8): the first request with a key runs and its response is stored in
// the same transaction as its work; a retry within 24 h gets that response replayed; a different request
// with the same key is 422; a twin arriving while the first still runs is 409. The claim is an advisory lock
// of the request's own transaction, so a request that dies (a killed process) releases it with its
// transaction: nothing says "in progress" after the request is gone.
import { createHash } from 'node:crypto';
import type { Context, Next } from 'koa';
import { decryptSecret, encryptSecret } from '../lib/crypto.ts';
import { canonicalJson } from '../lib/json.ts';
import { claimIdempotencyKey, completeIdempotencyKey, type IdempotencyScope } from '../db/queries/idempotency.ts';
import { identity, tx, type Deps } from './context.ts';
import { badRequest, conflict, problemBody, toApiError, unprocessable } from './errors.ts';

const uuidV4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** `sealed`: the stored response carries a secret, so it is kept encrypted with the service key. */
export function idempotency(deps: Deps, sealed = false) {
  const seal = (body: unknown) => JSON.stringify(sealed ? { sealed: encryptSecret(deps.secretKey, JSON.stringify(body ?? null)) } : (body ?? null));
  const unseal = (stored: unknown) =>
    sealed && stored && typeof stored === 'object' && 'sealed' in stored
      ? JSON.parse(decryptSecret(deps.secretKey, String((stored as { sealed: string }).sealed)))
      : stored;
  return async (ctx: Context, next: Next) => {
    const key = ctx.get('idempotency-key').trim();
    if (!key)
      throw badRequest('the Idempotency-Key header is required on every POST and PATCH under /v2', [{ field: 'Idempotency-Key', message: 'is required' }]);
    if (!uuidV4.test(key)) throw badRequest('the Idempotency-Key header must be a UUIDv4', [{ field: 'Idempotency-Key', message: 'must be a UUIDv4' }]);
    const who = identity(ctx);
    const body = (ctx.request as { body?: unknown }).body;
    const fingerprint = createHash('sha256')
      .update(`${ctx.method} ${ctx.path}\n${canonicalJson(body ?? null)}`)
      .digest('hex');
    const scope: IdempotencyScope = [who.agencyId, who.mode, key.toLowerCase()];
    const claim = await claimIdempotencyKey(tx(ctx), scope, fingerprint);
    if (claim.outcome === 'mismatch') {
      throw unprocessable('this Idempotency-Key was already used with a different request; use a fresh key for each distinct operation', [
        { field: 'Idempotency-Key', message: 'reused with a different method, path or body' },
      ]);
    }
    if (claim.outcome === 'running') throw conflict('a request with this Idempotency-Key is still in progress; retry it shortly');
    if (claim.outcome === 'done') {
      ctx.status = claim.response_status ?? 200;
      ctx.body = unseal(claim.response_body) ?? undefined;
      if (ctx.status >= 400 && problemBody.contentType) ctx.type = problemBody.contentType;
      ctx.set('Idempotent-Replayed', 'true');
      return;
    }
    try {
      await next();
      await completeIdempotencyKey(tx(ctx), scope, fingerprint, ctx.status, seal(ctx.body));
    } catch (err) {
      const api = toApiError(err);
      // A refused request is an answer too: its retry gets the same answer. (The request's transaction is
      // rolled back, so the answer is stored on its own; a 5xx stores nothing and the retry runs again.)
      if (api.status < 500) await completeIdempotencyKey(deps.db.owner, scope, fingerprint, api.status, JSON.stringify(problemBody(api)));
      throw err;
    }
  };
}
