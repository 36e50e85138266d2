// Dashboard: the agency's v1 webhook subscriptions (SPEC §4.2, §6.4): list, create (the signing secret shown
// once), delete after a confirmation, and each one's delivery log of the chosen mode with its deliveries and
// redelivery. A subscription receives test and live events alike, so creating and deleting one routes live
// data: as for the topic endpoints' production side, that is done from the live view (the test view says so).
// Every action is the same query or helper the /v1/webhooks routes use.
import type { Context } from 'koa';
import { z } from 'zod';
import { deleteSubscription, listSubscriptions } from '../../../db/queries/webhook_endpoints.ts';
import { base, renderPage, shownOnce, type DashboardSession } from '../../dashboard.ts';
import { dashboardAction, dashboardPage } from '../../dashboard_routes.ts';
import { notFound, unprocessable, zodDetails } from '../../errors.ts';
import { deliveryDetailBody } from '../../pages/dashboard_deliveries.ts';
import { subscriptionsBody } from '../../pages/dashboard_subscriptions.ts';
import { html, type SafeHtml } from '../../pages/html.ts';
import { presentSubscription } from '../../presenters/webhooks.ts';
import { tx } from '../../route.ts';
import { deliveryLogQuery, modeParams } from '../../schemas/dashboard.ts';
import { id } from '../../schemas/common.ts';
import { createSubscriptionBody } from '../../schemas/webhooks.ts';
import { sampleV1Event } from '../../../pipelines/webhooks/payloads.ts';
import { deliveryDetail, deliveryLogPage, loadSubscription, redeliverTo, sendTest, subscribe } from '../../webhooks.ts';

const uuid = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'a subscription id (UUID)');
const subParams = z.object({ mode: z.enum(['test', 'live']), uuid });
const subDeliveryParams = subParams.extend({
  delivery_id: id,
});

const secretBox = (secret: string) =>
  shownOnce(
    'Signing secret of the new subscription',
    secret,
    html`Your receiver checks each delivery’s <code>x-signature</code> with it (HMAC-SHA256 of the raw body).`,
  );

async function subscriptionsPage(ctx: Context, s: DashboardSession, top: SafeHtml | null, status = 200): Promise<void> {
  const subs = (await listSubscriptions(tx(ctx))).map(presentSubscription);
  await renderPage(ctx, s, 'v1 webhook subscriptions', subscriptionsBody(s, subs, top), status);
}

export const dashboardSubscriptionRoutes = [
  dashboardPage({
    path: '/dashboard/:mode/subscriptions',
    operationId: 'dashboardSubscriptions',
    summary: 'v1 webhook subscriptions page',
    auth: 'dashboard_admin',
    params: modeParams,
    handler: (ctx, { s }) => subscriptionsPage(ctx, s, null),
  }),
  dashboardAction({
    path: '/dashboard/:mode/subscriptions',
    operationId: 'dashboardCreateSubscription',
    summary: 'Subscribe a URL (live view); the signing secret is shown once',
    auth: 'dashboard_admin',
    params: modeParams,
    handler: async (ctx, { s, body }, deps) => {
      const events = body.events === undefined ? [] : Array.isArray(body.events) ? body.events : [body.events];
      const description = typeof body.description === 'string' && body.description.trim() ? body.description : undefined;
      const parsed = createSubscriptionBody.safeParse({ url: typeof body.url === 'string' ? body.url : '', events: [...new Set(events)], description });
      if (!parsed.success) throw unprocessable('please check the subscription', zodDetails(parsed.error));
      const { secret } = await subscribe(ctx, deps, parsed.data);
      await subscriptionsPage(ctx, s, secretBox(secret), 201);
    },
  }),
  dashboardAction({
    path: '/dashboard/:mode/subscriptions/:uuid/delete',
    operationId: 'dashboardDeleteSubscription',
    summary: 'Delete a subscription and its delivery log (live view)',
    auth: 'dashboard_admin',
    params: subParams,
    seeOther: 'Back to the subscriptions',
    handler: async (ctx, { s, params }) => {
      // In the test view the delete policy sees nothing (removal routes live data): a 404 like any other.
      if (!(await deleteSubscription(tx(ctx), params.uuid))) throw notFound('webhook subscription');
      return `${base(s.mode)}/subscriptions`;
    },
  }),
  dashboardAction({
    path: '/dashboard/:mode/subscriptions/:uuid/test',
    operationId: 'dashboardTestSubscription',
    summary: 'Send a sample event of the first subscribed event name, then show the delivery',
    auth: 'dashboard_admin',
    params: subParams,
    seeOther: 'To the new delivery',
    handler: async (ctx, { s, params }) => {
      const w = await loadSubscription(ctx, params.uuid);
      const name = w.events.find((e) => e !== '*') ?? 'client-submission.complete';
      // Filed under this view's mode (the sample carries no customer data), so it shows in this view's log.
      const d = await sendTest(ctx, w.id, sampleV1Event(name as Parameters<typeof sampleV1Event>[0]));
      return `${base(s.mode)}/subscriptions/${w.id}/deliveries/${d.id}`;
    },
  }),
  dashboardPage({
    path: '/dashboard/:mode/subscriptions/:uuid/deliveries',
    operationId: 'dashboardSubscriptionDeliveries',
    summary: 'The delivery log of a subscription in this mode, newest first, filterable by status',
    auth: 'dashboard_admin',
    params: subParams,
    query: deliveryLogQuery,
    handler: async (ctx, { s, params, query }) => {
      const w = await loadSubscription(ctx, params.uuid);
      await deliveryLogPage(ctx, s, w.id, {
        title: `Delivery log: ${w.url}`,
        path: `${base(s.mode)}/subscriptions/${w.id}`,
        back: { href: `${base(s.mode)}/subscriptions`, label: 'Back to the subscriptions' },
        query,
      });
    },
  }),
  dashboardPage({
    path: '/dashboard/:mode/subscriptions/:uuid/deliveries/:delivery_id',
    operationId: 'dashboardSubscriptionDelivery',
    summary: 'One delivery of a subscription with every attempt',
    auth: 'dashboard_admin',
    params: subDeliveryParams,
    handler: async (ctx, { s, params }) => {
      const w = await loadSubscription(ctx, params.uuid);
      const d = await deliveryDetail(ctx, w.id, params.delivery_id);
      await renderPage(ctx, s, `Delivery #${d.id}`, deliveryDetailBody(s, `${base(s.mode)}/subscriptions/${w.id}`, d));
    },
  }),
  dashboardAction({
    path: '/dashboard/:mode/subscriptions/:uuid/deliveries/:delivery_id/redeliver',
    operationId: 'dashboardSubscriptionRedeliver',
    summary: 'Send a delivery of a subscription again',
    auth: 'dashboard_admin',
    params: subDeliveryParams,
    seeOther: 'To the new delivery',
    handler: async (ctx, { s, params }) => {
      const w = await loadSubscription(ctx, params.uuid);
      // deliveryDetail is read under RLS (this mode only): another mode's delivery is a 404 here.
      await deliveryDetail(ctx, w.id, params.delivery_id);
      const d = await redeliverTo(ctx, w.id, params.delivery_id);
      return `${base(s.mode)}/subscriptions/${w.id}/deliveries/${d.id}`;
    },
  }),
];
