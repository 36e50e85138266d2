// Dashboard: forms of the chosen mode (admins see the agency's, agents their own and the agency-wide ones),
// publish and duplicate (the same state functions as /v2/forms), the embed snippet (iframe plus the
// message listener with its origin check), signed agent links with metadata, and the embed origins.
import type { Context } from 'koa';
import { z } from 'zod';
import { listAgents } from '../../../db/queries/agents.ts';
import { listEmbedOrigins, setEmbedOrigins } from '../../../db/queries/embed_origins.ts';
import { activeAgent, linkTarget } from '../../../db/queries/form_links.ts';
import { duplicateForm, getForm, listForms, publishForm, type FormRow } from '../../../db/queries/forms.ts';
import { base, renderPage, when, type DashboardSession } from '../../dashboard.ts';
import { dashboardAction, dashboardPage } from '../../dashboard_routes.ts';
import type { Deps } from '../../context.ts';
import { notFound, unprocessable } from '../../errors.ts';
import { copyBox, formBody, formsBody } from '../../pages/dashboard_forms.ts';
import { html, type SafeHtml } from '../../pages/html.ts';
import { keysetPage } from '../../pagination.ts';
import { presentFormLink } from '../../presenters/form_links.ts';
import { hostedFormPath } from '../../pages/urls.ts';
import { tx } from '../../route.ts';
import { beforeId, modeIdParams, modeParams } from '../../schemas/dashboard.ts';
import { id, storableJson } from '../../schemas/common.ts';

const PAGE = 50;

/** Forms an agent (not an admin) works with: its own and the agency-wide ones. */
const visibleTo = (s: DashboardSession, f: FormRow) => s.isAdmin || f.owner_agent_id === null || f.owner_agent_id === s.agent_id;

async function loadForm(ctx: Context, s: DashboardSession, id: number): Promise<FormRow> {
  const f = await getForm(tx(ctx), id);
  if (!f || !visibleTo(s, f)) throw notFound('form');
  return f;
}

async function formPage(ctx: Context, deps: Deps, s: DashboardSession, f: FormRow, top: SafeHtml | null, status = 200): Promise<void> {
  const target = await linkTarget(tx(ctx), f.id);
  const me = await activeAgent(tx(ctx), s.agent_id);
  const published = f.status === 'active' && target?.live_name;
  const path = published && me ? hostedFormPath(me.slug, f.public_id, target.live_name!) : null;
  const agents = s.isAdmin ? await listAgents(tx(ctx), { email: null, includeDeactivated: false }, 200, 0) : [];
  const origins = await listEmbedOrigins(tx(ctx));
  await renderPage(ctx, s, f.name, formBody(s, f, { top, appUrl: deps.cfg.appUrl, path, published: !!published, agents, origins }), status);
}

export const dashboardFormRoutes = [
  dashboardPage({
    path: '/dashboard/:mode/forms',
    operationId: 'dashboardForms',
    summary: 'Forms page',
    auth: 'dashboard',
    params: modeParams,
    query: z.object({
      status: z.enum(['draft', 'active']).or(z.literal('')).optional(),
      before: beforeId,
    }),
    handler: async (ctx, { s, query }) => {
      const { page: forms, nextCursor: next } = keysetPage(
        await listForms(tx(ctx), {
          before: query.before ?? null,
          status: query.status || null,
          insuranceLine: null,
          limit: PAGE + 1,
          visibleToAgentId: s.isAdmin ? null : s.agent_id,
        }),
        PAGE,
        (f) => String(f.id),
      );
      await renderPage(ctx, s, 'Forms', formsBody(s, forms, query, next));
    },
  }),
  dashboardPage({
    path: '/dashboard/:mode/forms/:id',
    operationId: 'dashboardForm',
    summary: 'One form: publish, duplicate, link and embed code',
    auth: 'dashboard',
    params: modeIdParams,
    handler: async (ctx, { s, params }, deps) => {
      await formPage(ctx, deps, s, await loadForm(ctx, s, params.id), null);
    },
  }),
  dashboardAction({
    path: '/dashboard/:mode/forms/:id/publish',
    operationId: 'dashboardPublishForm',
    summary: 'Publish a form',
    auth: 'dashboard_admin',
    params: modeIdParams,
    handler: async (ctx, { s, params }, deps) => {
      await loadForm(ctx, s, params.id);
      const f = await publishForm(tx(ctx), params.id);
      await formPage(ctx, deps, s, f, html`<p class="notice" role="status">Published.</p>`);
    },
  }),
  dashboardAction({
    path: '/dashboard/:mode/forms/:id/duplicate',
    operationId: 'dashboardDuplicateForm',
    summary: 'Duplicate a form into a new draft',
    auth: 'dashboard_admin',
    params: modeIdParams,
    seeOther: 'To the copy',
    handler: async (ctx, { s, params }) => {
      await loadForm(ctx, s, params.id);
      const copy = await duplicateForm(tx(ctx), params.id);
      return `${base(s.mode)}/forms/${copy.id}`;
    },
  }),
  dashboardAction({
    path: '/dashboard/:mode/forms/:id/links',
    operationId: 'dashboardFormLink',
    summary: 'A signed link for an agent with metadata',
    auth: 'dashboard_admin',
    params: modeIdParams,
    handler: async (ctx, { s, params, body }, deps) => {
      const f = await loadForm(ctx, s, params.id);
      const target = await linkTarget(tx(ctx), f.id);
      if (!target || target.status !== 'active' || !target.live_name) throw unprocessable('publish the form before making links to it');
      const agentId = id.safeParse(body.agent_id);
      const agent = agentId.success ? await activeAgent(tx(ctx), agentId.data) : undefined;
      if (!agent || (target.owner_agent_id !== null && target.owner_agent_id !== agent.id))
        throw unprocessable('choose an active agent who may share this form', [{ field: 'agent_id', message: 'not allowed' }]);
      const key = String(body.meta_key ?? '').trim();
      const metadata = key ? { [key]: String(body.meta_value ?? '') } : {};
      if (!storableJson(metadata)) {
        throw unprocessable('metadata must not contain NUL characters', [{ field: 'meta_value', message: 'must not contain NUL characters' }]);
      }
      const link = presentFormLink(deps, { ...target, live_name: target.live_name }, agent, metadata);
      await formPage(
        ctx,
        deps,
        s,
        f,
        html`<section class="dash-secret" aria-label="New link">${copyBox('new-link', `Link for the agent, valid until ${when(link.expires_at)}`, link.url, false)}</section>`,
        201,
      );
    },
  }),
  dashboardAction({
    path: '/dashboard/:mode/forms/:id/embed-origins',
    operationId: 'dashboardEmbedOrigins',
    summary: 'Replace the embed origins',
    auth: 'dashboard_admin',
    params: modeIdParams,
    handler: async (ctx, { s, params, body }, deps) => {
      const f = await loadForm(ctx, s, params.id);
      const origins = [
        ...new Set(
          String(body.origins ?? '')
            .split(/[\s,]+/)
            .map((o) => o.trim().replace(/\/+$/, '').toLowerCase())
            .filter(Boolean),
        ),
      ];
      const bad = origins.filter((o) => !/^https?:\/\/[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]{1,5})?$/.test(o));
      if (bad.length)
        throw unprocessable(
          'each origin is scheme://host[:port], without a path',
          bad.map((o) => ({ field: 'origins', message: o })),
        );
      await setEmbedOrigins(tx(ctx), origins);
      await formPage(ctx, deps, s, f, html`<p class="notice" role="status">Origins saved.</p>`);
    },
  }),
];
