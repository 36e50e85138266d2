// PostGraphile v5 at /graphql over the operators' views (app_ops) and the analysts' schema (app_analyst)
// only — never the partner API. Callers present an operator or analyst token; each request runs as
// svc_operator or svc_analyst (SET LOCAL ROLE), so Postgres grants and RLS decide what it can read.
// Depth, page size and cost are checked before execution, and a statement timeout bounds each query.
import type { Context, Next } from 'koa';
import { koaBody } from 'koa-body';
import { randomUUID } from 'node:crypto';
import {
  getNamedType,
  getNullableType,
  GraphQLError,
  GraphQLObjectType,
  isListType,
  Kind,
  parse,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type SelectionSetNode,
  type ValueNode,
} from 'postgraphile/graphql';
import type { PostGraphileInstance } from 'postgraphile';
import { exportGraphileEnv } from '../lib/config.ts';
import { badRequest } from './errors.ts';
import { operatorAuth } from './operator_auth.ts';
import type { Deps } from './route.ts';

/** The schemas PostGraphile exposes. */
export const graphqlSchemas = ['app_ops', 'app_analyst'];

export interface GraphqlLimits {
  /** Deepest nesting of fields in one operation (introspection excluded). */
  maxDepth: number;
  /** Largest `first`/`last` of a connection; a connection without either is refused. */
  maxPage: number;
  /** Upper bound of rows one operation may ask for (product of page sizes along each path, summed). */
  maxCost: number;
  /** statement_timeout of each request's transaction, in milliseconds. */
  statementTimeoutMs: number;
}

export const defaultGraphqlLimits: GraphqlLimits = { maxDepth: 8, maxPage: 1000, maxCost: 20_000, statementTimeoutMs: 5_000 };

class LimitError extends Error {}

function argInt(value: ValueNode | undefined, variables: Record<string, unknown>): number | undefined {
  if (!value) return undefined;
  if (value.kind === Kind.INT) return Number(value.value);
  if (value.kind === Kind.VARIABLE) {
    const v = variables[value.name.value];
    return typeof v === 'number' ? v : undefined;
  }
  return undefined;
}

/**
 * Depth and cost of the operation to run. Cost counts the rows a query may produce: every field costs the
 * number of parent rows, and a connection multiplies by its `first`/`last`, which is required and capped.
 */
export function measureOperation(
  schema: GraphQLSchema,
  doc: DocumentNode,
  operationName: string | undefined,
  variables: Record<string, unknown>,
  limits: GraphqlLimits,
) {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of doc.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const ops = doc.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  const op = operationName ? ops.find((o) => o.name?.value === operationName) : ops[0];
  if (!op) return { depth: 0, cost: 0 };
  const root = op.operation === 'query' ? schema.getQueryType() : op.operation === 'mutation' ? schema.getMutationType() : schema.getSubscriptionType();
  let maxDepth = 0;
  const walk = (set: SelectionSetNode, type: GraphQLObjectType | undefined, depth: number, rows: number, seen: Set<string>): number => {
    let cost = 0;
    for (const sel of set.selections) {
      if (sel.kind === Kind.FRAGMENT_SPREAD) {
        const f = fragments.get(sel.name.value);
        if (!f || seen.has(f.name.value)) continue;
        const t = schema.getType(f.typeCondition.name.value);
        cost += walk(f.selectionSet, t instanceof GraphQLObjectType ? t : type, depth, rows, new Set([...seen, f.name.value]));
        continue;
      }
      if (sel.kind === Kind.INLINE_FRAGMENT) {
        const t = sel.typeCondition ? schema.getType(sel.typeCondition.name.value) : type;
        cost += walk(sel.selectionSet, t instanceof GraphQLObjectType ? t : type, depth, rows, seen);
        continue;
      }
      const name = sel.name.value;
      if (name.startsWith('__')) continue; // introspection: bounded by the schema itself
      const field = type?.getFields()[name];
      const d = depth + 1;
      maxDepth = Math.max(maxDepth, d);
      if (maxDepth > limits.maxDepth) throw new LimitError(`query depth exceeds ${limits.maxDepth}`);
      cost += rows;
      if (!sel.selectionSet) continue;
      const named = field ? getNamedType(field.type) : undefined;
      const underConnection = !!type?.name.endsWith('Connection');
      let childRows = rows;
      if (named && named.name.endsWith('Connection')) {
        const arg = (n: string) => sel.arguments?.find((a) => a.name.value === n)?.value;
        const page = argInt(arg('first'), variables) ?? argInt(arg('last'), variables);
        if (page === undefined) throw new LimitError(`${name} needs first or last (at most ${limits.maxPage})`);
        if (page > limits.maxPage) throw new LimitError(`${name}: first/last is at most ${limits.maxPage}`);
        childRows = rows * Math.max(page, 1);
      } else if (field && !underConnection && isListType(getNullableType(field.type))) {
        childRows = rows * limits.maxPage;
      }
      cost += walk(sel.selectionSet, named instanceof GraphQLObjectType ? named : undefined, d, childRows, seen);
      if (cost > limits.maxCost) throw new LimitError(`query may return more than ${limits.maxCost} rows; ask for smaller pages`);
    }
    return cost;
  };
  const cost = walk(op.selectionSet, root ?? undefined, 0, 1, new Set());
  return { depth: maxDepth, cost };
}

/** Postgres refusals the caller should read (a missing grant, the statement timeout); JSON log lines for the rest. */
const visibleSqlStates = new Set(['42501', '57014']);

function maskError(error: GraphQLError, deps: Deps, defaultMaskError: (e: GraphQLError) => GraphQLError): GraphQLError {
  const original = error.originalError as { code?: string; message?: string } | undefined;
  if (!original || original instanceof GraphQLError) return defaultMaskError(error);
  if (original.code && visibleSqlStates.has(original.code)) {
    return new GraphQLError(original.message ?? 'refused', { nodes: error.nodes, path: error.path, extensions: { sqlState: original.code } });
  }
  const errorId = randomUUID();
  deps.log.error('graphql error', { errorId, err: original, path: error.path });
  return new GraphQLError(`internal error (id ${errorId})`, { nodes: error.nodes, path: error.path, extensions: { errorId } });
}

/** The /graphql middleware: operator/analyst auth, limits, then PostGraphile. Other paths pass through. */
export function graphqlMiddleware(deps: Deps, limits: GraphqlLimits = defaultGraphqlLimits) {
  // A request pool that logs in as the owner can SET ROLE to any role; a dedicated login role cannot, so
  // then the owner pool is used (the role is switched per transaction either way).
  const pool = deps.db.switchRole ? deps.db.request : deps.db.owner;
  const graphiql = deps.cfg.GRAPHIQL;
  // PostGraphile is loaded on the first /graphql request: Grafast reads GRAPHILE_ENV when imported, and a
  // process that never serves /graphql never pays for it.
  let loaded: Promise<{ pgl: PostGraphileInstance; handle: (ctx: Context, next: Next) => Promise<void> }> | undefined;
  const load = () =>
    (loaded ??= (async () => {
      exportGraphileEnv(deps.cfg);
      const [{ postgraphile }, { makePgService }, { defaultMaskError }, { grafserv }, { PostGraphileAmberPreset }] = await Promise.all([
        import('postgraphile'),
        import('postgraphile/adaptors/pg'),
        import('postgraphile/grafserv'),
        import('postgraphile/grafserv/koa/v3'),
        import('postgraphile/presets/amber'),
      ]);
      const preset: GraphileConfig.Preset = {
        extends: [PostGraphileAmberPreset],
        pgServices: [makePgService({ pool, schemas: graphqlSchemas })],
        // Read-only: no mutations (the roles can only select anyway; this keeps the schema honest).
        schema: { defaultBehavior: '-insert -update -delete' },
        grafserv: {
          graphqlPath: '/graphql',
          graphiql,
          graphiqlOnGraphQLGET: graphiql,
          graphiqlPath: '/graphql',
          graphiqlStaticPath: '/graphql/ruru-static/',
          websockets: false,
          maxRequestLength: 100_000,
          maskError: (error) => maskError(error, deps, defaultMaskError),
        },
        grafast: {
          explain: false,
          context(requestContext) {
            const ctx = (requestContext as { koav3?: { ctx: Context } }).koav3?.ctx;
            const role = ctx?.state.operator?.role === 'analyst' ? 'svc_analyst' : 'svc_operator';
            return {
              pgSettings: {
                role,
                statement_timeout: String(limits.statementTimeoutMs),
                'svc.request_id': ctx?.state.requestId ?? '',
              },
            };
          },
        },
      };
      const pgl = postgraphile(preset);
      const serv = pgl.createServ(grafserv);
      const handle = (serv as unknown as { _createHandler(): (ctx: Context, next: Next) => Promise<void> })._createHandler();
      return { pgl, handle };
    })());
  const auth = operatorAuth(deps, ['operator', 'analyst']);
  const json = koaBody({ json: true, urlencoded: false, multipart: false, jsonLimit: '100kb', jsonStrict: true });

  const middleware = async (ctx: Context, next: Next) => {
    if (ctx.path !== '/graphql' && !ctx.path.startsWith('/graphql/')) return next();
    const page = ctx.method === 'GET' && (ctx.path !== '/graphql' || ctx.accepts('json', 'html') === 'html');
    if (!(graphiql && page)) await auth(ctx, async () => {});
    if (ctx.method === 'POST') {
      await json(ctx, async () => {});
      const body = (ctx.request as { body?: { query?: unknown; operationName?: unknown; variables?: unknown } }).body ?? {};
      if (typeof body.query === 'string') {
        let doc: DocumentNode | undefined;
        try {
          doc = parse(body.query);
        } catch {
          doc = undefined; // PostGraphile reports the syntax error in GraphQL's own shape
        }
        if (doc) {
          const { schema } = await (await load()).pgl.getSchemaResult();
          try {
            measureOperation(
              schema,
              doc,
              typeof body.operationName === 'string' ? body.operationName : undefined,
              (body.variables as Record<string, unknown>) ?? {},
              limits,
            );
          } catch (err) {
            if (err instanceof LimitError) throw badRequest(err.message, { code: 'query_too_expensive' });
            throw err;
          }
        }
      }
    }
    await (await load()).handle(ctx, next);
  };
  return Object.assign(middleware, { release: async () => (loaded ? (await loaded).pgl.release() : undefined) });
}
