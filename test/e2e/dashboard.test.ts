// The agency dashboard in real Chromium: sign-in by one-time link (a used or expired link refused), the API
// keys page (create and see the key once, roll, revoke), a forged POST without the CSRF token refused, another
// agency's ids answered with 404 pages, sign-out and token reset ending the session; axe on every page and
// phone and desktop screenshots (written to the temp dir for people to look at).
import { browserTest, browserUnavailable, VIEWPORTS } from '../helpers/browser.ts';
import {
  csrfOf,
  look,
  plainAgentSignedIn,
  reloadUntilHeading,
  signedIn as signedInTo,
  signInLink as linkFor,
  dashboardWorld,
  type DashboardWorld,
} from '../helpers/dashboard.ts';
import { HOSTED_STEPS, OWNER_ANSWERS, publishedForm } from '../helpers/hosted.ts';
import test from 'ava';

// Set when the world starts, before the first test.
let { svc, browser, receiver, oauth, a, b } = {} as DashboardWorld;
const world = dashboardWorld((w) => ({ svc, browser, receiver, oauth, a, b } = w));

const signInLink = (agentId: number) => linkFor(world(), agentId);
const signedIn = (agentId: number, viewport?: { width: number; height: number }) => signedInTo(world(), agentId, viewport);

test('the dashboard-link endpoint needs the OAuth client token and an agent of a linked agency', async (t) => {
  if (browserUnavailable) return t.pass();
  const asAgent = await svc.request('POST', `/v1/agents/${a.ownerId}/dashboard-link`, { token: a.ownerToken });
  t.is(asAgent.status, 403);
  const other = await svc.oauthClient('Someone else');
  t.is((await svc.request('POST', `/v1/agents/${a.ownerId}/dashboard-link`, { token: other.token })).status, 404);
  const ok = await svc.request('POST', `/v1/agents/${a.ownerId}/dashboard-link`, { token: oauth.token });
  t.is(ok.status, 200);
  t.deepEqual(Object.keys(ok.body), ['data'], 'the v1 envelope');
  t.regex(ok.body.data.url, /\/dashboard\/sign-in\/dsl_[A-Za-z0-9_-]{40,}$/);
  const ttl = new Date(ok.body.data.expires_at).getTime() - Date.now();
  t.true(ttl > 0 && ttl <= svc.cfg.DASHBOARD_LINK_TTL_SECONDS * 1000);
  const { rows } = await svc.tdb.db.owner.query('select count(*)::int n from app_private.dashboard_links where token_hash = sha256(convert_to($1, $2))', [
    ok.body.data.url.split('/').pop(),
    'UTF8',
  ]);
  t.is(rows[0].n, 1, 'only the hash is stored');
});

browserTest('sign in by link; a used or expired link is refused; the cookie is HttpOnly and SameSite=Lax', async (t) => {
  const link = await signInLink(a.ownerId);
  const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
  const page = await context.newPage();
  const res = await page.goto(link);
  t.is(res?.status(), 200);
  t.regex(page.url(), /\/dashboard\/test\/forms$/, 'the token leaves the address bar');
  await page.getByText('Test data.').waitFor();
  const cookie = (await context.cookies()).find((c) => c.name === 'svc_dashboard');
  t.truthy(cookie);
  t.true(cookie!.httpOnly);
  t.is(cookie!.sameSite, 'Lax');
  t.false(cookie!.secure, 'plain http in the test: not Secure (Secure over https)');
  const csp = res!.headers()['content-security-policy'];
  t.regex(csp, /script-src 'self'/);
  t.regex(csp, /frame-ancestors 'none'/);
  t.notRegex(csp, /unsafe-inline/);

  const again = await (await browser.newContext()).newPage();
  const used = await again.goto(link);
  t.is(used?.status(), 403, 'a link works once');
  await again.getByRole('heading', { name: 'This sign-in link cannot be used' }).waitFor();
  await look(t, again, 'link-refused');

  const stale = await signInLink(a.ownerId);
  await svc.tdb.db.owner.query(`update app_private.dashboard_links set expires_at = now() - interval '1 second' where used_at is null`);
  t.is((await again.goto(stale))?.status(), 403, 'an expired link is refused');
  await context.close();
  await again.context().close();
});

browserTest('API keys: create and see it once, use it, roll with the old key cut off, revoke after confirming', async (t) => {
  const { context, page } = await signedIn(a.ownerId);
  await page.goto(`${svc.url}/dashboard/test/keys`);
  await look(t, page, 'keys-empty');
  await page.getByLabel('Name').fill('Zapier sync');
  await page.getByRole('button', { name: 'Create key' }).click();
  await page.getByText('it is shown only once').waitFor();
  const key = await page.locator('[data-secret]').inputValue();
  t.regex(key, /^svc_test_/);
  await look(t, page, 'keys-created');
  t.is((await svc.request('GET', '/v2/forms', { token: key })).status, 200, 'the key works');
  // Shown once: the list page never carries it again.
  await page.goto(`${svc.url}/dashboard/test/keys`);
  t.false((await page.content()).includes(key));
  t.true(await page.getByRole('row', { name: /Zapier sync/ }).isVisible());
  t.regex(await page.getByRole('row', { name: /Zapier sync/ }).innerText(), new RegExp(key.slice(-4)));

  // Roll with no grace period: a new key, the old one refused.
  await page.getByText('Roll', { exact: true }).click();
  await page.getByLabel('Old key keeps working for').selectOption('0');
  await page.getByRole('button', { name: 'Roll “Zapier sync”' }).click();
  await page.getByText('The replacement for “Zapier sync”').waitFor();
  const rolled = await page.locator('[data-secret]').inputValue();
  t.not(rolled, key);
  t.is((await svc.request('GET', '/v2/forms', { token: key })).status, 401);
  t.is((await svc.request('GET', '/v2/forms', { token: rolled })).status, 200);

  // Revoke: the confirmation is a second step.
  await page.goto(`${svc.url}/dashboard/test/keys`);
  const row = page.getByRole('row', { name: /Zapier sync/ }).filter({ hasText: 'active' });
  await row.getByText('Revoke', { exact: true }).click();
  await row.getByRole('button', { name: /Revoke “Zapier sync” now/ }).click();
  await page.waitForURL(/\/dashboard\/test\/keys$/);
  t.is((await svc.request('GET', '/v2/forms', { token: rolled })).status, 401);
  t.is(
    await page
      .getByRole('row', { name: /Zapier sync/ })
      .filter({ hasText: 'active' })
      .count(),
    0,
  );

  // Live data is a separate view: none of the test keys show there.
  await page.getByRole('link', { name: 'Switch to live data' }).click();
  await page.getByText('Live data.').waitFor();
  t.is(await page.getByRole('row', { name: /Zapier sync/ }).count(), 0);
  await look(t, page, 'keys-live');
  await context.close();
});

browserTest('a forged POST without the CSRF token is refused; another agency’s ids are 404 pages', async (t) => {
  const { context, page } = await signedIn(a.ownerId);
  const before = await svc.tdb.db.owner.query('select count(*)::int n from app_public.api_keys where agency_id = $1', [a.agencyId]);
  // The browser sends the session cookie (same site), but the form has no token: refused before anything runs.
  const forged = await page.request.post(`${svc.url}/dashboard/test/keys`, { form: { name: 'forged', permissions: 'admin' } });
  t.is(forged.status(), 403);
  const wrong = await page.request.post(`${svc.url}/dashboard/test/keys`, { form: { name: 'forged', permissions: 'admin', _csrf: 'x'.repeat(43) } });
  t.is(wrong.status(), 403);
  const after = await svc.tdb.db.owner.query('select count(*)::int n from app_public.api_keys where agency_id = $1', [a.agencyId]);
  t.is(after.rows[0].n, before.rows[0].n, 'no key was created');

  const theirs = await svc.request('POST', `/v1/agencies/${b.agencyId}/api-keys`, {
    token: b.ownerToken,
    json: { name: 'B key', mode: 'test', permissions: 'admin' },
  });
  const csrf = await csrfOf(page);
  const revoke = await page.request.post(`${svc.url}/dashboard/test/keys/${theirs.body.data.id}/revoke`, { form: { _csrf: csrf } });
  t.is(revoke.status(), 404);
  t.regex(await revoke.text(), /Not found/);
  t.is((await svc.request('GET', '/v2/forms', { token: theirs.body.data.key })).status, 200, 'their key still works');
  await context.close();
});

browserTest('sign-out ends the session; so do a token reset and deactivation; agents without admin rights see no keys', async (t) => {
  const { context, page } = await signedIn(a.ownerId);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'You are signed out' }).waitFor();
  t.is((await page.goto(`${svc.url}/dashboard/test/keys`))?.status(), 401);
  await context.close();

  const agent = await svc.request('POST', `/v1/agencies/${a.agencyId}/agents`, {
    token: oauth.token,
    json: { first_name: 'Ann', last_name: 'Agent', email: 'ann@example.com' },
  });
  t.is(agent.status, 200, agent.text);
  const agentId = agent.body.data.agent?.id ?? agent.body.data.id;
  const s1 = await signedIn(agentId, VIEWPORTS.phone);
  t.is((await s1.page.goto(`${svc.url}/dashboard/test/keys`))?.status(), 403, 'keys are for admins');
  t.is(await s1.page.getByRole('link', { name: 'API keys' }).count(), 0);
  const reset = await svc.request('POST', `/v1/agents/${agentId}/reset-access-token`, { token: oauth.token });
  t.is(reset.status, 200);
  t.is((await s1.page.goto(`${svc.url}/dashboard/test/keys`))?.status(), 401, 'a token reset ends the session');
  await s1.context.close();

  const s2 = await signedIn(agentId);
  t.is((await s2.page.goto(`${svc.url}/dashboard/test/keys`))?.status(), 403);
  t.is((await svc.request('DELETE', `/v1/agencies/${a.agencyId}/agents/${agentId}`, { token: a.ownerToken })).status, 204);
  t.is((await s2.page.goto(`${svc.url}/dashboard/test/keys`))?.status(), 401, 'deactivation ends the session');
  await s2.context.close();
});

browserTest(
  'webhooks: register a staging URL (secret once), send a test event, see the receiver’s answer in the log, filter, redeliver, re-enable',
  async (t) => {
    const { context, page } = await signedIn(a.ownerId);
    await page.goto(`${svc.url}/dashboard/test/webhooks`);
    await look(t, page, 'webhooks-empty');
    const card = page.getByRole('region', { name: /Form submissions/ });
    await card.getByLabel('Staging URL').fill(`${receiver.url}/hooks`);
    await card.getByRole('button', { name: 'Register Form submissions' }).click();
    await page.getByText('it is shown only once').waitFor();
    const secret = await page.locator('[data-secret]').inputValue();
    t.true(secret.length >= 24);
    await look(t, page, 'webhooks-registered');

    receiver.script({ status: 503, headers: { 'x-receiver': 'busy' }, body: 'try later' });
    await page
      .getByRole('region', { name: /Form submissions/ })
      .getByRole('button', { name: 'Send test event' })
      .click();
    await page.waitForURL(/\/deliveries\/\d+$/);
    const got = await receiver.waitFor(1);
    t.is(got[0].json.topic, 'form-submission');
    // The signature checks out with the secret shown once.
    const { createHmac } = await import('node:crypto');
    t.is(got[0].headers['x-signature'], createHmac('sha256', secret).update(got[0].raw).digest('hex'));
    await reloadUntilHeading(page, /Attempt 1: 503/, 'the first attempt in the log');
    t.true(await page.getByText('x-receiver: busy').isVisible());
    t.true(await page.getByText('try later').first().isVisible());
    await look(t, page, 'webhook-delivery');

    await page.getByRole('button', { name: 'Redeliver' }).click();
    await page.waitForURL(/\/deliveries\/\d+$/);
    await receiver.waitFor(2);
    await reloadUntilHeading(page, /Attempt 1: 200/, 'the redelivery answered 200');

    await page.goto(`${svc.url}/dashboard/test/webhooks/form-submission/deliveries`);
    t.true((await page.getByRole('row').count()) >= 3, 'header and two deliveries');
    await page.getByLabel('Status').selectOption('delivered');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/status=delivered/);
    const statuses = await page.locator('tbody .dash-status').allInnerTexts();
    t.true(statuses.length >= 1);
    t.true(statuses.every((x) => x === 'delivered'));
    await look(t, page, 'webhook-log');

    // A disabled endpoint says why and can be re-enabled.
    const c = await svc.tdb.db.owner.connect();
    try {
      // As record_delivery_attempt does after days of failures (its own test covers when).
      await c.query('begin');
      await c.query(`select set_config('svc.transition', 'on', true)`);
      await c.query(
        `update app_public.webhook_endpoints set enabled = false, disabled_reason = 'failed for 5 days', disabled_at = now() where agency_id = $1 and topic = 'form-submission'`,
        [a.agencyId],
      );
      await c.query('commit');
    } finally {
      c.release();
    }
    // Enabling or disabling an endpoint switches live delivery: a live-mode action (sandbox keys may set only the staging URL).
    await page.goto(`${svc.url}/dashboard/live/webhooks`);
    await page.getByText('failed for 5 days').waitFor();
    await page.getByRole('button', { name: 'Re-enable Form submissions' }).click();
    await page.waitForURL(/\/webhooks$/);
    t.is(await page.getByText('failed for 5 days').count(), 0);

    // Another agency's delivery ids are 404 pages.
    const bKey = await svc.apiKey(b.ownerToken, b.agencyId, 'test');
    await svc.request('PUT', '/v2/webhook-endpoints/form-submission', { token: bKey, json: { staging_url: `${receiver.url}/b` } });
    const theirs = await svc.request('POST', '/v2/webhook-endpoints/form-submission/test', {
      token: bKey,
      headers: { 'Idempotency-Key': crypto.randomUUID() },
    });
    t.is(theirs.status, 202, theirs.text);
    t.is((await page.goto(`${svc.url}/dashboard/test/webhooks/form-submission/deliveries/${theirs.body.id}`))?.status(), 404);
    await look(t, page, 'not-found');
    await context.close();
  },
);

browserTest(
  'forms: publish a draft, copy its embed code and link, make an agent link with metadata, duplicate; another agency’s form is a 404 page',
  async (t) => {
    const key = await svc.apiKey(a.ownerToken, a.agencyId, 'test');
    const w = (method: string, p: string, json?: unknown) => svc.request(method, p, { token: key, json, headers: { 'Idempotency-Key': crypto.randomUUID() } });
    const draft = await w('POST', '/v2/forms', { name: 'Renters quote', owner: { type: 'agency', agency_id: a.agencyId }, insurance_line: 'renters' });
    t.is(draft.status, 201, draft.text);
    t.is((await w('PATCH', `/v2/forms/${draft.body.id}`, { steps: HOSTED_STEPS })).status, 200);

    const { context, page } = await signedIn(a.ownerId, VIEWPORTS.phone);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: svc.url });
    await page.getByRole('link', { name: 'Renters quote' }).click();
    await page.getByText('Publish the form to get its link and embed code.').waitFor();
    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    await page.getByText('Published.').waitFor();
    t.is((await w('GET', `/v2/forms/${draft.body.id}`)).body.status, 'active', 'published through the same state function');
    const snippet = await page.getByLabel(/Embed code/).inputValue();
    t.regex(snippet, /<iframe id="service-form" src="http:\/\/127\.0\.0\.1:\d+\/[^"]+\/form\/[^"]+\?embed=1"/);
    t.true(snippet.includes(`if (e.origin !== '${new URL(svc.url).origin}') return;`), 'the listener checks the origin');
    await page.getByRole('region', { name: 'Share and embed' }).getByRole('button', { name: 'Copy' }).nth(1).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    t.is(await page.evaluate(() => navigator.clipboard.readText()), snippet);
    const link = await page.getByLabel('Your link to this form').inputValue();
    t.is((await fetch(link)).status, 200, 'the hosted page answers');
    await look(t, page, 'form-published');

    await page.getByLabel('Metadata name').fill('crm_id');
    await page.getByLabel('Metadata value').fill('lead-7');
    await page.getByRole('button', { name: 'Make link' }).click();
    const signed = await page.locator('#new-link').inputValue();
    t.regex(signed, /\?ctx=/);
    t.is((await fetch(signed)).status, 200);
    t.is((await fetch(signed.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')))).status, 403, 'a changed link is refused');

    await page.getByLabel(/Origins, one a line/).fill('https://www.harbor.example');
    await page.getByRole('button', { name: 'Save origins' }).click();
    await page.getByText('Origins saved.').waitFor();
    t.deepEqual((await w('GET', '/v2/embed-origins')).body.origins, ['https://www.harbor.example']);

    await page.getByRole('button', { name: 'Duplicate' }).click();
    await page.waitForURL(/\/forms\/\d+$/);
    t.not(page.url().split('/').pop(), String(draft.body.id));
    await page.getByText('draft', { exact: true }).waitFor();

    const bKey = await svc.apiKey(b.ownerToken, b.agencyId, 'test');
    const theirs = await svc.request('POST', '/v2/forms', {
      token: bKey,
      json: { name: 'Theirs', owner: { type: 'agency', agency_id: b.agencyId }, insurance_line: 'renters' },
      headers: { 'Idempotency-Key': crypto.randomUUID() },
    });
    t.is((await page.goto(`${svc.url}/dashboard/test/forms/${theirs.body.id}`))?.status(), 404);
    const csrf = await csrfOf(page);
    t.is((await page.request.post(`${svc.url}/dashboard/test/forms/${theirs.body.id}/publish`, { form: { _csrf: csrf } })).status(), 404);
    // The live view does not show test forms.
    t.is((await page.goto(`${svc.url}/dashboard/live/forms/${draft.body.id}`))?.status(), 404);
    await page.goto(`${svc.url}/dashboard/test/forms`);
    await look(t, page, 'forms-list');
    await context.close();
  },
);

browserTest('submissions: the list filters by form, the detail shows the answers; agents see only theirs; usage shows the plan', async (t) => {
  const key = await svc.apiKey(a.ownerToken, a.agencyId, 'test');
  const form = await publishedForm(svc, key, a.agencyId, 'Home insurance quote');
  const page0 = await svc.request('GET', `/${a.slug}/form/${form.public_id}/home-insurance-quote`, {});
  const data = JSON.parse(/<script type="application\/json" id="form-data">(.*?)<\/script>/s.exec(page0.text)![1]);
  const sent = await svc.request('POST', `/${a.slug}/form/${form.public_id}/submissions`, { json: { snapshot_id: data.snapshot_id, answers: OWNER_ANSWERS } });
  t.is(sent.status, 201, sent.text);

  const { context, page } = await signedIn(a.ownerId);
  await page.getByRole('link', { name: 'Submissions' }).click();
  await page.getByRole('link', { name: `#${sent.body.submission_id}` }).waitFor();
  await look(t, page, 'submissions');
  await page.getByLabel('Form id').fill(String(form.id + 1000));
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.getByText('No submissions match these filters.').waitFor();
  await page.goto(`${svc.url}/dashboard/test/submissions?form_id=${form.id}`);
  await page.getByRole('link', { name: `#${sent.body.submission_id}` }).click();
  await page
    .getByRole('row', { name: /First name/ })
    .getByText('Zoë')
    .waitFor();
  t.true(await page.getByText(sent.body.trace_id).isVisible());
  await look(t, page, 'submission');
  t.is((await page.goto(`${svc.url}/dashboard/live/submissions/${sent.body.submission_id}`))?.status(), 404, 'test data is not in the live view');

  await page.goto(`${svc.url}/dashboard/test/usage`);
  await page.getByRole('heading', { name: 'Plan: free' }).waitFor();
  await look(t, page, 'usage');
  await context.close();

  // An agent without admin rights sees only submissions made through its own links.
  const bo = await plainAgentSignedIn(world(), a.agencyId, 'Bo', 'bo@example.com');
  await bo.page.goto(`${svc.url}/dashboard/test/submissions`);
  await bo.page.getByText('No submissions yet.').waitFor();
  t.is((await bo.page.goto(`${svc.url}/dashboard/test/submissions/${sent.body.submission_id}`))?.status(), 404);
  t.is((await bo.page.goto(`${svc.url}/dashboard/test/usage`))?.status(), 403);
  await bo.context.close();
});
