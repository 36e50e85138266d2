// What the dashboard's browser tests share: a service with a worker, a webhook receiver and Chromium, an
// OAuth client with two agencies, sign-in by a fresh one-time link, and "look" (axe, then phone and desktop
// screenshots in the temp dir's dashboard-screens folder, for people to look at).
import { mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import type { Runner } from 'graphile-worker';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { assertAccessible, axe, browserUnavailable, launchBrowser, VIEWPORTS } from './browser.ts';
import { startReceiver, type Receiver } from './receiver.ts';
import { startService, type TestService } from './server.ts';
import { eventually, startTestWorker } from './worker.ts';

export const screens = path.join(os.tmpdir(), 'dashboard-screens');

export interface AgencyOfTest {
  agencyId: number;
  ownerId: number;
  ownerToken: string;
  slug: string;
}

export interface DashboardWorld {
  svc: TestService;
  worker: Runner;
  receiver: Receiver;
  browser: Browser;
  oauth: { token: string };
  /** "Harbor Lane Insurance" and "Other Agency", both of `oauth`. */
  a: AgencyOfTest;
  b: AgencyOfTest;
  close(): Promise<void>;
}

export async function startDashboardWorld(): Promise<DashboardWorld> {
  const svc = await startService({ WEBHOOK_ALLOW_HOSTS: '127.0.0.1' });
  const worker = await startTestWorker(svc);
  const receiver = await startReceiver();
  const browser = await launchBrowser();
  const oauth = await svc.oauthClient();
  const a = await svc.agency(oauth.token, 'Harbor Lane Insurance');
  const b = await svc.agency(oauth.token, 'Other Agency');
  await mkdir(screens, { recursive: true });
  return {
    svc,
    worker,
    receiver,
    browser,
    oauth,
    a,
    b,
    close: async () => {
      await browser.close();
      await worker.stop();
      await receiver.close();
      await svc.close();
    },
  };
}

/**
 * The dashboard world of a test file: started before its tests (unless no browser can run, when browserTest skips
 * them), handed to `use`, and closed after them. Returns the world's getter.
 */
export function dashboardWorld(use: (w: DashboardWorld) => void = () => {}): () => DashboardWorld {
  let w: DashboardWorld | undefined;
  test.before(async () => {
    if (browserUnavailable) return;
    w = await startDashboardWorld();
    use(w);
  });
  test.after.always(async () => w?.close());
  return () => {
    if (!w) throw new Error('the dashboard world is not started (no browser, or outside a test)');
    return w;
  };
}

/** A one-time sign-in link for an agent, asked for with the OAuth client's token. */
export async function signInLink(w: Pick<DashboardWorld, 'svc' | 'oauth'>, agentId: number): Promise<string> {
  const r = await w.svc.request('POST', `/v1/agents/${agentId}/dashboard-link`, { token: w.oauth.token });
  if (r.status !== 200) throw new Error(r.text);
  return r.body.data.url;
}

/** The session cookie a fresh sign-in link sets, for requests without a browser (asserts the link was given). */
export async function signInCookie(t: ExecutionContext, svc: TestService, oauthToken: string, agentId: number): Promise<string> {
  const link = await svc.request('POST', `/v1/agents/${agentId}/dashboard-link`, { token: oauthToken });
  t.is(link.status, 200, link.text);
  const signIn = await fetch(link.body.data.url, { redirect: 'manual' });
  return signIn.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
}

/** A signed-in browser context (cookie set by following a fresh link). */
export async function signedIn(
  w: Pick<DashboardWorld, 'svc' | 'oauth' | 'browser'>,
  agentId: number,
  viewport: { width: number; height: number } = VIEWPORTS.desktop,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await w.browser.newContext({ viewport });
  const page = await context.newPage();
  await page.goto(await signInLink(w, agentId));
  return { context, page };
}

/** axe on the page (no serious violations), then a phone and a desktop screenshot named `name`. */
export async function look(t: ExecutionContext, page: Page, name: string): Promise<void> {
  assertAccessible(t, await axe(page), name);
  for (const [width, vp] of Object.entries(VIEWPORTS)) {
    await page.setViewportSize(vp);
    await page.screenshot({ path: path.join(screens, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize(VIEWPORTS.desktop);
}

/** A new agent of agency `agencyId` (no admin rights, surname Agent), signed in in a browser context of its own. */
export async function plainAgentSignedIn(w: Pick<DashboardWorld, 'svc' | 'oauth' | 'browser'>, agencyId: number, firstName: string, email: string) {
  const r = await w.svc.request('POST', `/v1/agencies/${agencyId}/agents`, {
    token: w.oauth.token,
    json: { first_name: firstName, last_name: 'Agent', email },
  });
  return signedIn(w, r.body.data.agent?.id ?? r.body.data.id);
}

/** Reload `page` until a heading matching `name` shows (a delivery log fills in as the worker sends), 15 s at most. */
export const reloadUntilHeading = (page: Page, name: RegExp, what: string) =>
  eventually(
    async () => {
      await page.reload();
      return (await page.getByRole('heading', { name }).count()) > 0;
    },
    15_000,
    what,
  );

/** The CSRF token of the signed-in page. */
export const csrfOf = (page: Page) => page.locator('input[name=_csrf]').first().inputValue();
