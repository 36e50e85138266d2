// Dashboard: the agency's API keys in the chosen mode. Create (the key shown once), roll with a grace period,
// revoke after a confirmation; the same state functions as /v1/agencies/{id}/api-keys.
import { z } from 'zod';
import { apiKeyMode, createApiKey, listApiKeysPage, revokeApiKey, rollApiKey } from '../../../db/queries/api_keys.ts';
import { newApiKey } from '../../../lib/secrets.ts';
import { base, renderPage, shownOnce, type DashboardSession } from '../../dashboard.ts';
import { dashboardAction, dashboardPage } from '../../dashboard_routes.ts';
import { notFound, unprocessable } from '../../errors.ts';
import { apiKeysBody, GRACE } from '../../pages/dashboard_api_keys.ts';
import type { SafeHtml } from '../../pages/html.ts';
import { keysetPage } from '../../pagination.ts';
import { presentApiKey } from '../../presenters/api_keys.ts';
import { tx } from '../../route.ts';
import { beforeId, modeIdParams, modeParams } from '../../schemas/dashboard.ts';

const keyShownOnce = (key: string, what: string) =>
  shownOnce(what, key, 'We store only a hash, so nobody can show it to you again. Keep it on your server; never put it in browser code or a URL.');

const PAGE = 50;

async function keysPage(
  ctx: Parameters<typeof renderPage>[0],
  s: DashboardSession,
  top: SafeHtml | null,
  status = 200,
  before: number | null = null,
): Promise<void> {
  const { page, nextCursor } = keysetPage(await listApiKeysPage(tx(ctx), s.agency_id, { mode: s.mode, before, limit: PAGE + 1 }), PAGE, (k) => String(k.id));
  const keys = page.map(presentApiKey);
  await renderPage(ctx, s, 'API keys', apiKeysBody(s, keys, { top, before, next: nextCursor }), status);
}

const createFields = z.object({ name: z.string().trim().min(1).max(100), permissions: z.enum(['admin', 'read_only']) });

export const dashboardApiKeyRoutes = [
  dashboardPage({
    path: '/dashboard/:mode/keys',
    operationId: 'dashboardApiKeys',
    summary: 'API keys page',
    auth: 'dashboard_admin',
    params: modeParams,
    query: z.object({ before: beforeId }),
    handler: (ctx, { s, query }) => keysPage(ctx, s, null, 200, query.before ?? null),
  }),
  dashboardAction({
    path: '/dashboard/:mode/keys',
    operationId: 'dashboardCreateApiKey',
    summary: 'Create a key; the answer shows it once',
    auth: 'dashboard_admin',
    params: modeParams,
    handler: async (ctx, { s, body }) => {
      const f = createFields.safeParse(body);
      if (!f.success) throw unprocessable('give the key a name and choose its permissions', [{ field: 'name', message: 'required, at most 100 characters' }]);
      const k = newApiKey(s.mode);
      const created = await createApiKey(tx(ctx), s.agency_id, { name: f.data.name, mode: s.mode, permissions: f.data.permissions }, k);
      await keysPage(ctx, s, keyShownOnce(k.key, `Your new key “${created.name}”`), 201);
    },
  }),
  dashboardAction({
    path: '/dashboard/:mode/keys/:id/roll',
    operationId: 'dashboardRollApiKey',
    summary: 'Roll a key; the answer shows the replacement once',
    auth: 'dashboard_admin',
    params: modeIdParams,
    handler: async (ctx, { s, params, body }) => {
      const grace = Number(body.grace_period_seconds ?? 0);
      if (!GRACE.some(([v]) => v === grace)) throw unprocessable('choose one of the grace periods offered');
      const mode = await apiKeyMode(tx(ctx), s.agency_id, params.id);
      if (mode !== s.mode) throw notFound('API key');
      const k = newApiKey(mode);
      const rolled = await rollApiKey(tx(ctx), s.agency_id, params.id, grace, k);
      await keysPage(ctx, s, keyShownOnce(k.key, `The replacement for “${rolled.name}”`));
    },
  }),
  dashboardAction({
    path: '/dashboard/:mode/keys/:id/revoke',
    operationId: 'dashboardRevokeApiKey',
    summary: 'Revoke a key at once',
    auth: 'dashboard_admin',
    params: modeIdParams,
    seeOther: 'Back to the keys',
    handler: async (ctx, { s, params }) => {
      if ((await apiKeyMode(tx(ctx), s.agency_id, params.id)) !== s.mode) throw notFound('API key');
      await revokeApiKey(tx(ctx), s.agency_id, params.id);
      return `${base(s.mode)}/keys`;
    },
  }),
];
