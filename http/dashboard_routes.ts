// Dashboard routes declared like any route: a page (GET) or a form's action (POST), each handler handed the
// signed-in agent as `s`; what every dashboard page answers. Apart from http/dashboard.ts (the session, CSRF and
// page shell), which the route mounting in http/route.ts uses, so the two do not import each other.
import type { Context } from 'koa';
import type { z } from 'zod';
import type { Deps } from './context.ts';
import { session, type DashboardSession } from './dashboard.ts';
import type { RouteInput, RouteSpec } from './route.ts';
import { dashboardForm } from './schemas/dashboard.ts';

/** What a dashboard page answers: the page, the sign-in page, a refusal (no CSRF token, not an admin), or nothing there. */
export const pageResponses: RouteSpec['responses'] = {
  200: { description: 'HTML page' },
  401: { description: 'Not signed in' },
  403: { description: 'No CSRF token, or not an admin' },
  404: { description: 'Not found' },
};

/** What a page any agent of the session may open answers. */
export const agentPageResponses: RouteSpec['responses'] = {
  200: { description: 'HTML page' },
  401: { description: 'Not signed in' },
  404: { description: 'Not found' },
};

/** A dashboard route's input: the route's, and `s`, the signed-in agent (`session(ctx)`). */
type DashboardInput<P extends z.ZodType, Q extends z.ZodType, B> = RouteInput<z.infer<P>, z.infer<Q>, B> & { s: DashboardSession };

/**
 * A dashboard page (GET), declared like any route but for its method, tag and (by default) `pageResponses`; its
 * handler is handed the session as `s`.
 */
export function dashboardPage<P extends z.ZodType, Q extends z.ZodType = z.ZodObject<{}>>(
  spec: Omit<RouteSpec<P, Q>, 'method' | 'tags' | 'responses' | 'handler'> & {
    responses?: RouteSpec['responses'];
    handler: (ctx: Context, input: DashboardInput<P, Q, unknown>, deps: Deps) => Promise<void>;
  },
): RouteSpec {
  const { handler, ...rest } = spec;
  return {
    method: 'get',
    tags: ['Dashboard'],
    responses: pageResponses,
    ...rest,
    handler: (ctx: Context, input: RouteInput<z.infer<P>, z.infer<Q>, unknown>, deps: Deps) => handler(ctx, { ...input, s: session(ctx) }, deps),
  } as unknown as RouteSpec;
}

/**
 * The action of a dashboard form (POST, urlencoded `dashboardForm`, whose `_csrf` `withSession` checks). The handler,
 * handed the session as `s`, renders a page, or returns the path to answer 303 See Other to, which `seeOther` describes.
 */
export function dashboardAction<P extends z.ZodType>(
  spec: Omit<RouteSpec<P, z.ZodObject<{}>, typeof dashboardForm>, 'method' | 'tags' | 'urlencoded' | 'body' | 'responses' | 'handler'> & {
    responses?: RouteSpec['responses'];
    seeOther?: string;
    handler: (ctx: Context, input: DashboardInput<P, z.ZodObject<{}>, z.infer<typeof dashboardForm>>, deps: Deps) => Promise<string | void>;
  },
): RouteSpec {
  const { seeOther, handler, responses = pageResponses, ...rest } = spec;
  return {
    method: 'post',
    tags: ['Dashboard'],
    urlencoded: true,
    body: dashboardForm,
    responses: seeOther ? { ...responses, 303: { description: seeOther } } : responses,
    ...rest,
    handler: async (ctx: Context, input: RouteInput<z.infer<P>, {}, z.infer<typeof dashboardForm>>, deps: Deps) => {
      const to = await handler(ctx, { ...input, s: session(ctx) }, deps);
      if (typeof to === 'string') {
        ctx.status = 303;
        ctx.redirect(to);
      }
    },
  } as unknown as RouteSpec;
}
