// Operator and analyst tokens (svc operators create), and resolving one presented at /graphql or /metrics.
import type pg from 'pg';

type Queryable = Pick<pg.Pool | pg.ClientBase, 'query'>;

export type OperatorRole = 'operator' | 'analyst';

export interface OperatorRow {
  operator_token_id: number;
  name: string;
  role: OperatorRole;
}

/** Store a token by its hash; returns the token's id. */
export async function createOperatorToken(db: Queryable, name: string, role: OperatorRole, tokenHash: Buffer): Promise<number> {
  const { rows } = await db.query<{ id: number }>('select app_private.create_operator_token($1, $2, $3) as id', [name, role, tokenHash]);
  return rows[0].id;
}

/** Revoke every live token of `name`; returns how many were revoked. */
export async function revokeOperatorTokens(db: Queryable, name: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>('select app_private.revoke_operator_tokens($1) as n', [name]);
  return rows[0].n;
}

/** The operator or analyst behind a token hash, or undefined. */
export async function authenticateOperator(db: Queryable, tokenHash: Buffer): Promise<OperatorRow | undefined> {
  const { rows } = await db.query<OperatorRow>({ name: 'svc_auth_operator', text: 'select * from app_private.authenticate_operator($1)', values: [tokenHash] });
  return rows[0];
}
