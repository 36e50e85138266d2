// Dashboard sign-in by one-time link, sign-out, and the entry redirect.
import { z } from 'zod';
import { withIdentity } from '../../../db/pool.ts';
import { endDashboardSession, startDashboardSession } from '../../../db/queries/dashboard.ts';
import { hashToken } from '../../../lib/secrets.ts';
import { csrfToken, newSessionId, renderBare, sessionHashOf, setSessionCookie } from '../../dashboard.ts';
import { route } from '../../route.ts';
import { dashboardForm } from '../../schemas/dashboard.ts';

export const dashboardSessionRoutes = [
  route({
    method: 'get',
    path: '/dashboard/sign-in/:token',
    operationId: 'dashboardSignIn',
    summary: 'Use a one-time sign-in link: starts a session (cookie) and leaves the URL',
    tags: ['Dashboard'],
    auth: 'none',
    params: z.object({ token: z.string().max(200) }),
    responses: { 303: { description: 'Signed in: to the dashboard' }, 403: { description: 'A used, expired or unknown link' } },
    handler: async (ctx, { params }, deps) => {
      const session = newSessionId();
      const agentId = await withIdentity(deps.db, { role: 'system' }, (c) => startDashboardSession(c, hashToken(params.token), session.hash));
      if (!agentId) {
        await renderBare(
          ctx,
          403,
          'This sign-in link cannot be used',
          'Sign-in links work once and only for a few minutes. Open the dashboard again from your integration to get a new one.',
        );
        return;
      }
      setSessionCookie(ctx, deps, session.id);
      ctx.set('Cache-Control', 'no-store');
      ctx.set('Referrer-Policy', 'no-referrer');
      ctx.status = 303;
      ctx.redirect('/dashboard');
    },
  }),
  route({
    method: 'get',
    path: '/dashboard',
    operationId: 'dashboardHome',
    summary: 'The dashboard: to the test-data forms page',
    tags: ['Dashboard'],
    auth: 'none',
    responses: { 303: { description: 'To a section' } },
    handler: async (ctx) => {
      ctx.status = 303;
      ctx.redirect('/dashboard/test/forms');
    },
  }),
  route({
    method: 'post',
    path: '/dashboard/sign-out',
    operationId: 'dashboardSignOut',
    summary: 'End the session',
    tags: ['Dashboard'],
    auth: 'none',
    urlencoded: true,
    body: dashboardForm,
    responses: { 200: { description: 'Signed out' }, 403: { description: 'Without the CSRF token' } },
    handler: async (ctx, { body }, deps) => {
      const hash = sessionHashOf(ctx);
      // Sign-out needs the CSRF token too: a forged form must not end someone's session.
      if (hash && body._csrf !== csrfToken(deps, hash)) {
        await renderBare(ctx, 403, 'Request refused', 'This form was not sent from your dashboard session.');
        return;
      }
      if (hash) await withIdentity(deps.db, { role: 'system' }, (c) => endDashboardSession(c, hash));
      setSessionCookie(ctx, deps, null);
      await renderBare(ctx, 200, 'You are signed out', 'To come back, open the dashboard again from your integration.');
    },
  }),
];
