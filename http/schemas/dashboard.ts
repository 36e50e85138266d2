// Dashboard: the sign-in link of the /v1 API, and the form fields of the dashboard pages (urlencoded; every
// field optional here so a bad form re-renders as a page, the handler checks what it needs).
import { z } from 'zod';
import { id } from './common.ts';

export const dashboardLink = z
  .object({
    data: z.object({
      url: z.url().describe('Open in a browser to start a dashboard session; valid once, for minutes'),
      expires_at: z.iso.datetime(),
    }),
  })
  .meta({ id: 'DashboardLink', description: 'In the v1 envelope, like every /v1 answer' });

export const modeParams = z.object({ mode: z.enum(['test', 'live']) });
export const modeIdParams = z.object({
  mode: z.enum(['test', 'live']),
  id: id,
});
/** `?before=<id>`: the keyset position of a list page (the last id of the page before). */
export const beforeId = id.optional();
export const modeTopicParams = z.object({ mode: z.enum(['test', 'live']), topic: z.enum(['client-submission', 'form-submission']) });
export const modeTopicDeliveryParams = modeTopicParams.extend({
  delivery_id: id,
});
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;

/** `?status=&before=` of a delivery log. */
export const deliveryLogQuery = z.object({ status: z.enum(DELIVERY_STATUSES).or(z.literal('')).optional(), before: z.string().max(200).optional() });

/** Any dashboard form: the CSRF token and a few short text fields. */
export const dashboardForm = z
  .record(
    z.string().max(64),
    z
      .string()
      .max(4000)
      .or(z.array(z.string().max(4000)).max(50)),
  )
  .and(z.object({ _csrf: z.string().max(200).optional() }));
