// Dashboard: "Recover failed deliveries since…" on a topic endpoint. Choosing the instant shows how many failed
// deliveries of this mode would be sent again before anything is sent; confirming starts the recovery (the same
// state function as POST /v2/webhook-endpoints/{topic}/recover) and shows its progress.
import { z } from 'zod';
import { countRecoverable, recoverDeliveries } from '../../../db/queries/recoveries.ts';
import { base, renderPage } from '../../dashboard.ts';
import { dashboardAction, dashboardPage } from '../../dashboard_routes.ts';
import { badRequest } from '../../errors.ts';
import { recoverBody, recoveryBody } from '../../pages/dashboard_recoveries.ts';
import { tx } from '../../route.ts';
import { modeTopicParams } from '../../schemas/dashboard.ts';
import { loadTopicEndpoint, recoveryOf } from '../../webhooks.ts';

// The browser's datetime-local value, read as UTC (the dashboard shows every time in UTC).
const LOCAL_INSTANT = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(:\d{2})?$/;
function instantOf(v: unknown): Date {
  const m = typeof v === 'string' ? LOCAL_INSTANT.exec(v.trim()) : null;
  const d = m ? new Date(`${m[1]}T${m[2]}${m[3] ?? ':00'}Z`) : null;
  if (!d || Number.isNaN(d.getTime())) throw badRequest('choose the day and time (UTC) to recover from', [{ field: 'since', message: 'not a date and time' }]);
  return d;
}

export const dashboardRecoveryRoutes = [
  dashboardPage({
    path: '/dashboard/:mode/webhooks/:topic/recover',
    operationId: 'dashboardRecoverDeliveries',
    summary: 'Choose since when to recover failed deliveries; shows the count before confirming',
    auth: 'dashboard_admin',
    params: modeTopicParams,
    query: z.object({ since: z.string().max(40).optional() }),
    handler: async (ctx, { s, params, query }) => {
      const w = await loadTopicEndpoint(ctx, params.topic);
      const since = query.since ? instantOf(query.since) : null;
      const count = since ? await countRecoverable(tx(ctx), w.id, since, null) : null;
      await renderPage(ctx, s, `Recover failed deliveries: ${params.topic}`, recoverBody(s, params.topic, since, count));
    },
  }),
  dashboardAction({
    path: '/dashboard/:mode/webhooks/:topic/recover',
    operationId: 'dashboardStartRecovery',
    summary: 'Start the recovery (confirmed), then show its progress',
    auth: 'dashboard_admin',
    params: modeTopicParams,
    seeOther: 'To the recovery',
    handler: async (ctx, { s, params, body }) => {
      const w = await loadTopicEndpoint(ctx, params.topic);
      const raw = (body as Record<string, unknown>).since;
      const since = typeof raw === 'string' && !Number.isNaN(Date.parse(raw)) && /Z$/.test(raw) ? new Date(raw) : instantOf(raw);
      const r = await recoverDeliveries(tx(ctx), w.id, since, null);
      return `${base(s.mode)}/webhooks/${params.topic}/recoveries/${r.id}`;
    },
  }),
  dashboardPage({
    path: '/dashboard/:mode/webhooks/:topic/recoveries/:recovery_id',
    operationId: 'dashboardRecovery',
    summary: 'Progress of a recovery',
    auth: 'dashboard_admin',
    params: modeTopicParams.extend({ recovery_id: z.uuid('a recovery id (UUID)') }),
    handler: async (ctx, { s, params }) => {
      const r = await recoveryOf(ctx, (await loadTopicEndpoint(ctx, params.topic)).id, params.recovery_id);
      await renderPage(ctx, s, `Recovery of ${params.topic}`, recoveryBody(s, params.topic, r));
    },
  }),
];
