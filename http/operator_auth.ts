// Operators' and analysts' credential (svc operators create), accepted only by /graphql and /metrics.
// Partner credentials (API keys, agent and OAuth tokens) are unknown here and get 401.
import type { Context, Next } from 'koa';
import { authenticateOperator, type OperatorRole } from '../db/queries/operators.ts';
import { hashToken } from '../lib/secrets.ts';
import { forbidden, unauthorized } from './errors.ts';
import type { Deps } from './route.ts';

const bearer = /^Bearer\s+([A-Za-z0-9._~+/=-]+)\s*$/i;

/** Require an operator or analyst token whose role is one of `roles`; sets ctx.state.operator. */
export function operatorAuth(deps: Deps, roles: OperatorRole[]) {
  return async (ctx: Context, next: Next) => {
    const m = bearer.exec(ctx.get('authorization'));
    if (!m) throw unauthorized('missing bearer token in the Authorization header (an operator or analyst token)');
    const who = await authenticateOperator(deps.db.request, hashToken(m[1]));
    if (!who) throw unauthorized('invalid or revoked operator token; partner credentials are not accepted here');
    if (!roles.includes(who.role)) throw forbidden(`this needs an ${roles.join(' or ')} token`);
    ctx.state.operator = who;
    await next();
  };
}
