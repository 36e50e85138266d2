// What every dashboard page shares: the session cookie, the request's transaction opened as the
// session's agent (same role and agency as its token, under RLS) in the mode the URL names, the CSRF token of
// every state-changing form, the page shell with its navigation and "Test data" banner, and errors as pages.
// The dashboard is a presentation of the existing state functions: handlers call the same queries as the API.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import type { Identity } from '../db/pool.ts';
import { authenticateDashboardSession, type DashboardSessionRow } from '../db/queries/dashboard.ts';
import { hashToken } from '../lib/secrets.ts';
import { inRequestTransaction, type Deps } from './context.ts';
import { badRequest, toApiError } from './errors.ts';
import { pageAssets } from './pages/assets.ts';
import { decodeTimeCursor } from './pagination.ts';
import { html, type SafeHtml } from './pages/html.ts';
import { contentSecurityPolicy, layout } from './pages/layout.ts';

export const SESSION_COOKIE = 'svc_dashboard';
export type Mode = 'test' | 'live';

export interface DashboardSession extends DashboardSessionRow {
  mode: Mode;
  /** The CSRF token every form of this session carries. */
  csrf: string;
  isAdmin: boolean;
}

/** The CSRF token of a session: an HMAC of its id's hash under the service key (nothing more to store). */
export function csrfToken(deps: Deps, sessionHash: Buffer): string {
  return createHmac('sha256', deps.secretKey).update('dashboard-csrf:').update(sessionHash).digest('base64url');
}

function csrfMatches(expected: string, presented: unknown): boolean {
  if (typeof presented !== 'string') return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(presented);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A new random session id (the cookie value) and its hash (what Postgres stores). */
export function newSessionId(): { id: string; hash: Buffer } {
  const id = randomBytes(32).toString('base64url');
  return { id, hash: hashToken(id) };
}

/** Set (or clear, with null) the session cookie: HttpOnly, SameSite=Lax, Secure when served over https. */
export function setSessionCookie(ctx: Context, deps: Deps, id: string | null): void {
  ctx.cookies.secure = ctx.secure;
  ctx.cookies.set(SESSION_COOKIE, id ?? '', {
    httpOnly: true,
    sameSite: 'lax',
    secure: ctx.secure,
    path: '/dashboard',
    overwrite: true,
    ...(id === null ? { expires: new Date(0) } : {}),
    signed: false,
  });
  void deps;
}

export function sessionHashOf(ctx: Context): Buffer | undefined {
  const id = ctx.cookies.get(SESSION_COOKIE);
  return id && /^[A-Za-z0-9_-]{20,100}$/.test(id) ? hashToken(id) : undefined;
}

/** Headers of every dashboard response: strict CSP (own script and styles, brand style by nonce, no framing). */
async function send(ctx: Context, status: number, title: string, body: SafeHtml, s: DashboardSession | null): Promise<void> {
  const assets = await pageAssets();
  const nonce = randomBytes(16).toString('base64');
  const page = layout({
    title: `${title} · Dashboard`,
    brand: { name: s?.agency_name ?? 'Dashboard', color: s?.color_code ?? null, logoUrl: null },
    header: false,
    nonce,
    stylesheetUrl: assets.stylesheet.url,
    scriptUrls: [assets.scripts.dashboard.url],
    body: s ? shell(ctx, s, title, body) : html`<div class="dash dash--bare">${body}</div>`,
  });
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set(
    'Content-Security-Policy',
    contentSecurityPolicy({ nonce, frameAncestors: [], imgOrigins: [] }).replace("frame-ancestors 'self'", "frame-ancestors 'none'"),
  );
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.body = page.value;
}

const SECTIONS: { path: string; label: string; admin: boolean }[] = [
  { path: 'keys', label: 'API keys', admin: true },
  { path: 'webhooks', label: 'Webhooks', admin: true },
  { path: 'subscriptions', label: 'v1 subscriptions', admin: true },
  { path: 'forms', label: 'Forms', admin: false },
  { path: 'submissions', label: 'Submissions', admin: false },
  { path: 'extractions', label: 'Extractions', admin: false },
  { path: 'review', label: 'Review', admin: false },
  { path: 'analyses', label: 'Lease checks', admin: true },
  { path: 'usage', label: 'Usage', admin: true },
];

/** The hidden CSRF field of a form. */
export const csrfField = (s: DashboardSession) => html`<input type="hidden" name="_csrf" value="${s.csrf}">`;

/** A secret (an API key, a signing secret) shown once after it was made, with a copy button and why it matters. */
export function shownOnce(title: string, value: string, why: SafeHtml | string): SafeHtml {
  return html`<section class="dash-secret" aria-labelledby="secret-title"><h2 id="secret-title">${title}</h2>
<p class="notice"><strong>Copy it now: it is shown only once.</strong> ${why}</p>
<div class="dash-copy"><input class="input dash-copy__value" id="secret-value" aria-labelledby="secret-title" readonly value="${value}" data-secret><button type="button" class="button button--secondary" data-copy="secret-value">Copy</button></div>
<p class="dash-copy__status" role="status" aria-live="polite"></p></section>`;
}

/** The dashboard base path of a mode. */
export const base = (mode: Mode) => `/dashboard/${mode}`;

function shell(ctx: Context, s: DashboardSession, title: string, body: SafeHtml): SafeHtml {
  const here = ctx.path.split('/')[3] ?? '';
  const rest = ctx.path.split('/').slice(3, 4).join('/');
  const other: Mode = s.mode === 'test' ? 'live' : 'test';
  return html`<div class="dash">
<header class="dash-top">
  <div class="dash-top__row">
    <span class="dash-top__agency">${s.agency_name}</span>
    <span class="dash-top__who">${s.first_name} ${s.last_name} (${s.role})</span>
    <form method="post" action="/dashboard/sign-out" class="dash-top__out">${csrfField(s)}<button class="button button--secondary button--small" type="submit">Sign out</button></form>
  </div>
  <nav class="dash-nav" aria-label="Dashboard">
    <ul>${SECTIONS.filter((x) => s.isAdmin || !x.admin).map((x) => html`<li><a href="${base(s.mode)}/${x.path}"${x.path === here ? html` aria-current="page"` : ''}>${x.label}</a></li>`)}</ul>
    <a class="dash-nav__mode" href="${base(other)}/${rest || 'keys'}">Switch to ${other === 'test' ? 'test data' : 'live data'}</a>
  </nav>
</header>
${s.mode === 'test' ? html`<p class="dash-banner" role="note"><strong>Test data.</strong> You are looking at sandbox data: svc_test_ keys, staging URLs, test forms.</p>` : html`<p class="dash-banner dash-banner--live" role="note"><strong>Live data.</strong> Changes here affect production.</p>`}
<div class="dash-body"><h1 class="dash-title">${title}</h1>${body}</div>
</div>`;
}

/** Render a page for the signed-in agent. */
export const renderPage = (ctx: Context, s: DashboardSession, title: string, body: SafeHtml, status = 200) => send(ctx, status, title, body, s);

/** A page without a session (signed out, link refused, errors before sign-in), with an optional way on. */
export const renderBare = (ctx: Context, status: number, title: string, message: string, link?: { href: string; label: string }) =>
  send(
    ctx,
    status,
    title,
    html`<section class="card card--message"><h1 class="card__title">${title}</h1><p class="lede">${message}</p>${link ? html`<p><a href="${link.href}">${link.label}</a></p>` : ''}</section>`,
    null,
  );

const errorTitles: Record<number, string> = { 400: 'Bad request', 403: 'Not allowed', 404: 'Not found', 422: 'That did not work', 429: 'Too many requests' };

const MODES_AND_ACTIONS = new Set(['test', 'live', 'sign-in', 'sign-out']);

/**
 * Error pages for everything under /dashboard/ that no handler turned into a page itself: an unknown mode or
 * section (404), a bad path or query parameter (400), answered as HTML in the dashboard's style instead of the
 * API's JSON. Mounted after the error middleware, before the router.
 */
export function dashboardErrorPages(deps: Deps) {
  return async (ctx: Context, next: () => Promise<unknown>): Promise<void> => {
    if (!ctx.path.startsWith('/dashboard/')) return void (await next());
    const home = { href: '/dashboard', label: 'Go to the dashboard' };
    const notHere = 'There is no such dashboard page. The dashboard’s addresses start with /dashboard/test/ (test data) or /dashboard/live/ (live data).';
    if (!MODES_AND_ACTIONS.has(ctx.path.split('/')[2] ?? '')) return renderBare(ctx, 404, 'Not found', notHere, home);
    try {
      await next();
    } catch (thrown) {
      const err = toApiError(thrown, deps.log, { requestId: ctx.state.requestId, path: ctx.path });
      const status = err.status === 422 ? 400 : err.status;
      const msg =
        status >= 500
          ? 'An unexpected error happened; it has been logged.'
          : `${err.message}${err.details.length ? `: ${err.details.map((d) => `${d.field ? `${d.field}: ` : ''}${d.message}`).join('; ')}` : ''}`;
      return renderBare(ctx, status, errorTitles[status] ?? 'Something went wrong', msg, home);
    }
    if (ctx.status === 404 && ctx.body === undefined) return renderBare(ctx, 404, 'Not found', notHere, home);
  };
}

/**
 * Paging links of a list, newest first: "Newer" back to the first page when this is not it, and "Older" to the
 * page after `next` (the last id or cursor shown) when there is one. `keep` are the list's filters.
 */
export function pager(
  path: string,
  keep: Record<string, string | number | null | undefined>,
  o: { paged: boolean; next: string | null; what: string },
): SafeHtml {
  if (!o.paged && !o.next) return html``;
  const q = (extra: Record<string, string>) => {
    const p = new URLSearchParams();
    for (const [k, v] of Object.entries(keep)) if (v !== null && v !== undefined && v !== '') p.set(k, String(v));
    for (const [k, v] of Object.entries(extra)) p.set(k, v);
    const str = p.toString();
    return str ? `${path}?${str}` : path;
  };
  return html`<nav class="dash-pager" aria-label="Pages of ${o.what}">${o.paged ? html`<a href="${q({})}">Newest ${o.what}</a>` : ''}${o.next ? html`<a href="${q({ before: o.next })}" rel="next">Older ${o.what}</a>` : ''}</nav>`;
}

/** The position in `?before=` of a list paged by time cursor (null on the first page); a damaged one is a 400 page. */
export function beforePosition(before: string | undefined, what: string): { t: string; id: string } | null {
  if (!before) return null;
  const damaged = () =>
    badRequest(`this “older ${what}” link is damaged; start again from the first page`, [{ field: 'before', message: 'not a page position' }]);
  return decodeTimeCursor(before, damaged);
}

/**
 * Run a dashboard handler as the session's agent in `mode` (what the auth rules 'dashboard' and
 * 'dashboard_admin' do, after the route's input is validated): no or dead session → the sign-in page (401);
 * a POST without the session's CSRF token → 403 before anything runs; errors → an error page in the shell.
 */
export async function withSession(ctx: Context, deps: Deps, mode: Mode, requireAdmin: boolean, fn: () => Promise<void>): Promise<void> {
  const hash = sessionHashOf(ctx);
  const client = await deps.db.request.connect();
  let s: DashboardSession | undefined;
  try {
    const row = hash && (await authenticateDashboardSession(client, hash, deps.cfg.DASHBOARD_SESSION_IDLE_SECONDS));
    if (!row || !hash) {
      await renderBare(
        ctx,
        401,
        'Please sign in',
        'Your session has ended or you are not signed in. Open the dashboard again from your integration to get a new sign-in link.',
      );
      return;
    }
    s = { ...row, mode, csrf: csrfToken(deps, hash), isAdmin: row.role === 'admin' || row.role === 'owner' };
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD' && !csrfMatches(s.csrf, (ctx.request as { body?: Record<string, unknown> }).body?._csrf)) {
      await renderPage(
        ctx,
        s,
        'Request refused',
        html`<p class="lede">This form was not sent from your dashboard session (its security token is missing or wrong). Go back, reload the page and try again.</p>`,
        403,
      );
      return;
    }
    if (requireAdmin && !s.isAdmin) {
      await renderPage(ctx, s, 'Not allowed', html`<p class="lede">This page is for the agency’s admins.</p>`, 403);
      return;
    }
    const who: Identity = { role: row.role, agencyId: row.agency_id, agentId: row.agent_id, mode };
    ctx.state.identity = who;
    ctx.state.session = s;
    await inRequestTransaction(ctx, deps.db, client, who, fn);
  } catch (thrown) {
    const err = toApiError(thrown, deps.log, { requestId: ctx.state.requestId, path: ctx.path });
    const title = errorTitles[err.status] ?? 'Something went wrong';
    const msg =
      err.status === 404
        ? 'There is nothing here, or it belongs to another agency or mode.'
        : err.status >= 500
          ? 'An unexpected error happened; it has been logged.'
          : err.message;
    if (s)
      await renderPage(
        ctx,
        s,
        title,
        html`<p class="lede">${msg}</p>${err.details.map((d) => html`<p>${d.field ? `${d.field}: ` : ''}${d.message}</p>`)}`,
        err.status,
      );
    else await renderBare(ctx, err.status, title, msg);
  } finally {
    ctx.state.session = undefined;
    client.release();
  }
}

/** The signed-in agent of a dashboard route (auth 'dashboard' or 'dashboard_admin'). */
export function session(ctx: Context): DashboardSession {
  const s = ctx.state.session as DashboardSession | undefined;
  if (!s) throw new Error('no dashboard session: the route must declare a dashboard auth rule');
  return s;
}

/** `2026-11-23 17:54 UTC`, or an em dash. */
export function when(d: Date | string | null | undefined): string {
  if (!d) return '—';
  return new Date(d).toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
}
