// Dashboard: review of uncertain fields. The queue lists extractions with fields to check, oldest
// first, filterable by agent and kind, with the agency's hold-for-review setting of this mode (admins change
// it). The review page shows each uncertain field beside a crop of the page where it was read, its value,
// confidence and rule; the reviewer saves the value as shown (a confirmation), a typed correction (checked by
// the field's schema) or "not on the document". Each decision is app_public.review_field (0026): audited,
// under RLS, in the session's mode; the last one of a held extraction delivers it, with a document link signed
// then (the one signed when the extraction completed may have expired while it waited for review).
import type { Context } from 'koa';
import { z } from 'zod';
import { getAgencyExtraction } from '../../../db/queries/extractions.ts';
import { fieldReviews, reviewField, reviewQueue, reviewSettings, setHoldForReview, setShareReviewedDocuments } from '../../../db/queries/reviews.ts';
import { fileLinkKey, signFileLink } from '../../../lib/links.ts';
import { base, renderPage, type DashboardSession } from '../../dashboard.ts';
import { dashboardAction, dashboardPage } from '../../dashboard_routes.ts';
import { badRequest, conflict, notFound } from '../../errors.ts';
import { queueBody, reviewBody } from '../../pages/dashboard_reviews.ts';
import { valueAt, type Citation } from '../../pages/extraction_fields.ts';
import type { SafeHtml } from '../../pages/html.ts';
import { pageSize } from '../../page_images.ts';
import { presentExtraction } from '../../presenters/extractions.ts';
import { tx, type Deps } from '../../route.ts';
import { modeParams } from '../../schemas/dashboard.ts';
import { reviewedValue, reviewForm, reviewQueueQuery } from '../../schemas/reviews.ts';

const uuid = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'an extraction id (UUID)');
const QUEUE_SIZE = 100;

async function queuePage(ctx: Context, s: DashboardSession, q: { agent?: string; kind?: string }, notice?: SafeHtml): Promise<void> {
  const agentId = !s.isAdmin ? s.agent_id : q.agent ? Number(q.agent) : null;
  const kind = q.kind || null;
  const rows = await reviewQueue(tx(ctx), { agentId, kind, limit: QUEUE_SIZE });
  const { hold_for_review: hold, share_reviewed_documents: share } = await reviewSettings(tx(ctx));
  const agents = [...new Map(rows.map((r) => [r.agent_id, r.agent_name])).entries()];
  await renderPage(ctx, s, 'Review', queueBody(s, { notice, hold, share, agents, rows, q, kind }));
}

/** The review page of one extraction: the fields to check first, then the decisions already made. */
async function reviewPage(
  ctx: Context,
  deps: Deps,
  s: DashboardSession,
  id: string,
  o: { field?: string; problem?: { pointer: string; message: string; value: string } } = {},
): Promise<void> {
  const problem = o.problem;
  const row = await getAgencyExtraction(tx(ctx), id);
  if (!row || (!s.isAdmin && row.agent_id !== s.agent_id)) throw notFound('extraction');
  const r = presentExtraction(row);
  const data = r.extracted_data as Record<string, unknown> | null;
  if (!data) throw conflict('this extraction has no extracted data to review');
  const citations = (data.citations ?? {}) as Record<string, Citation>;
  const uncertain = (data.needs_review ?? []) as string[];
  // After delivery any cited value may be corrected: ?field= adds it to the list.
  const extra = [o.field, problem?.pointer].find((f) => f && !uncertain.includes(f) && citations[f] && r.parsing_status !== 'needs_review');
  const pending = extra ? [extra, ...uncertain] : uncertain;
  const done = await fieldReviews(tx(ctx), id);
  const sizes = new Map<number, { w: number; h: number } | null>();
  if (row.blob_key)
    for (const p of new Set(pending.map((x) => citations[x]?.page).filter((p): p is number => !!p)))
      sizes.set(p, await pageSize(deps, row.blob_key, row.content_type, p));
  const next = pending.length ? null : (await reviewQueue(tx(ctx), { agentId: s.isAdmin ? null : s.agent_id, kind: null, limit: 1 }))[0];

  await renderPage(ctx, s, `Review: ${r.filename}`, reviewBody(s, { id, row, r, data, citations, pending, done, sizes, problem, next }));
}

export const dashboardReviewRoutes = [
  dashboardPage({
    path: '/dashboard/:mode/review',
    operationId: 'dashboardReviewQueue',
    summary: 'Review queue: extractions with uncertain fields, oldest first, by agent and kind',
    auth: 'dashboard',
    params: modeParams,
    query: reviewQueueQuery,
    handler: (ctx, { s, query }) => queuePage(ctx, s, query),
  }),
  dashboardAction({
    path: '/dashboard/:mode/review/settings',
    operationId: 'dashboardReviewSettings',
    summary: 'Hold extractions with uncertain fields for review, or share reviewed documents with the analysts (or stop), in this mode',
    auth: 'dashboard_admin',
    params: modeParams,
    handler: async (ctx, { s, body }) => {
      const onOff = (v: unknown) => (v === 'on' ? true : v === 'off' ? false : undefined);
      const hold = onOff(body.hold);
      const share = onOff(body.share);
      if (hold === undefined && share === undefined) throw badRequest('hold or share is on or off', [{ field: 'hold', message: 'on or off' }]);
      if (hold !== undefined) await setHoldForReview(tx(ctx), hold);
      if (share !== undefined) await setShareReviewedDocuments(tx(ctx), share);
      ctx.redirect(`${base(s.mode)}/review`);
    },
  }),
  dashboardPage({
    path: '/dashboard/:mode/review/:id',
    operationId: 'dashboardReview',
    summary: 'Review one extraction’s uncertain fields beside crops of the page',
    auth: 'dashboard',
    params: z.object({ mode: z.enum(['test', 'live']), id: uuid }),
    query: z.object({ field: reviewForm.shape.pointer.optional() }),
    handler: (ctx, { s, params, query }, deps) => reviewPage(ctx, deps, s, params.id, { field: query.field }),
  }),
  dashboardAction({
    path: '/dashboard/:mode/review/:id',
    operationId: 'dashboardReviewField',
    summary: 'Confirm, correct or mark "not on the document" one field',
    auth: 'dashboard',
    params: z.object({ mode: z.enum(['test', 'live']), id: uuid }),
    handler: async (ctx, { s, params, body }, deps) => {
      const form = reviewForm.safeParse(body);
      if (!form.success)
        throw badRequest(
          'the review form is incomplete',
          form.error.issues.map((i) => ({ field: i.path.join('.'), message: i.message })),
        );
      const { pointer, action } = form.data;
      const row = await getAgencyExtraction(tx(ctx), params.id);
      if (!row || (!s.isAdmin && row.agent_id !== s.agent_id)) throw notFound('extraction');
      let decision: { action: 'confirmed' | 'corrected' | 'not_on_document'; value: unknown };
      if (action === 'not_on_document') decision = { action, value: null };
      else {
        const typed = reviewedValue(pointer, form.data.value ?? '');
        if (!typed.ok) {
          ctx.status = 422;
          await reviewPage(ctx, deps, s, params.id, { problem: { pointer, message: typed.message, value: form.data.value ?? '' } });
          ctx.status = 422;
          return;
        }
        const current = row.result ? valueAt(row.result, pointer) : undefined;
        decision = typed.value === current ? { action: 'confirmed', value: current } : { action: 'corrected', value: typed.value };
      }
      // Signed on every review of a held extraction: review_field knows whether this one releases it.
      const documentLink =
        row.status === 'needs_review' && row.blob_key
          ? signFileLink({
              baseUrl: deps.cfg.filesUrl,
              key: fileLinkKey(deps.secretKey),
              blobKey: row.blob_key,
              filename: row.filename,
              ttlSeconds: deps.cfg.FILE_LINK_TTL_SECONDS,
            }).url
          : undefined;
      await reviewField(tx(ctx), { extractionId: params.id, pointer, ...decision, documentLink });
      ctx.redirect(`${base(s.mode)}/review/${params.id}`);
    },
  }),
];
