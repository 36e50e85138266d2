// The rest of the agency dashboard in real Chromium: extractions (list with filters and paging, the detail
// with each field's page and citation beside the page image rendered on the server), v1 subscriptions (create
// with the secret once, test event in the delivery log, delete), usage counts against the plan with
// rejections, paging of the keys and forms lists, and HTML error pages for a bad mode or parameter. axe on
// every page; phone and desktop screenshots in the temp dir (dashboard-screens) for people to look at.
import { browserTest, VIEWPORTS } from '../helpers/browser.ts';
import { csrfOf, look, plainAgentSignedIn, reloadUntilHeading, signedIn as signedInTo, dashboardWorld, type DashboardWorld } from '../helpers/dashboard.ts';
import { seedExtractionRows } from '../helpers/dashboard_seed.ts';
import { uploadFinished } from '../helpers/extraction.ts';
import { eventually } from '../helpers/worker.ts';

// Set when the world starts, before the first test.
let { svc, receiver, oauth, a, b } = {} as DashboardWorld;
const world = dashboardWorld((w) => ({ svc, receiver, oauth, a, b } = w));

const signedIn = (agentId: number, viewport?: { width: number; height: number }) => signedInTo(world(), agentId, viewport);

browserTest('extractions: a real upload listed, filtered and shown with each field’s page and citation beside the rendered page', async (t) => {
  t.timeout(240_000);
  const { rec } = await uploadFinished(t, svc, a, 'auto_acme_mutual.pdf', oauth.token);
  t.is(rec.parsing_status, 'completed', JSON.stringify(rec));
  const number = rec.extracted_data.policy.policy_number as string;
  const cite = rec.extracted_data.citations['/policy/policy_number'];
  t.truthy(cite, 'the record cites the policy number');

  const { context, page } = await signedIn(a.ownerId);
  await page.getByRole('link', { name: 'Extractions' }).click();
  await page.getByRole('link', { name: 'auto_acme_mutual.pdf' }).waitFor();
  await look(t, page, 'extractions');
  await page.getByLabel('Status').selectOption('failed');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.getByText('No test extractions match these filters.').waitFor();
  const today = new Date().toISOString().slice(0, 10);
  await page.goto(`${svc.url}/dashboard/test/extractions?status=completed&from=${today}&to=${today}`);
  await page.getByRole('link', { name: 'auto_acme_mutual.pdf' }).click();

  // The detail: the same record as the API, each field with its page, confidence and cited span, and the page image.
  await page.getByRole('heading', { name: 'Extraction: auto_acme_mutual.pdf' }).waitFor();
  const row = page.getByRole('row', { name: /policy › policy number/i });
  t.regex(await row.innerText(), new RegExp(number));
  // The value's own words (span), or the start of the row the rule read: never a whole coverage row.
  t.true((await row.innerText()).includes((cite.span ?? cite.text.split('\n')[0]).slice(0, 40)), 'the cited span is shown');
  t.is(await row.getByRole('link', { name: new RegExp(`Show page ${cite.page}`) }).count(), 1);
  const img = page.getByRole('img', { name: /Page \d+ of auto_acme_mutual\.pdf/ });
  await img.scrollIntoViewIfNeeded();
  await eventually(async () => (await img.evaluate((el: HTMLImageElement) => (el.complete ? el.naturalWidth : 0))) > 500, 30_000, 'the page image to load');
  const src = await img.getAttribute('src');
  const png = await page.request.get(`${svc.url}${src}`);
  t.is(png.status(), 200);
  t.is(png.headers()['content-type'], 'image/png');
  t.deepEqual([...(await png.body()).subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
  await look(t, page, 'extraction');

  // Not in the live view; not for another agency; not without a session; no page past the document's end.
  t.is((await page.goto(`${svc.url}/dashboard/live/extractions/${rec.extraction_id}`))?.status(), 404);
  t.is((await page.request.get(`${svc.url}/dashboard/test/extractions/${rec.extraction_id}/pages/99`)).status(), 404);
  const other = await signedIn(b.ownerId);
  t.is((await other.page.goto(`${svc.url}/dashboard/test/extractions/${rec.extraction_id}`))?.status(), 404);
  t.is((await other.page.request.get(`${svc.url}${src}`)).status(), 404);
  await other.context.close();
  t.is((await fetch(`${svc.url}${src}`)).status, 401, 'the image needs the session');

  // An agent without admin rights sees only its own extractions.
  const asAnn = await plainAgentSignedIn(world(), a.agencyId, 'Ann', 'ann.x@example.com');
  await asAnn.page.goto(`${svc.url}/dashboard/test/extractions`);
  await asAnn.page.getByText('No test extractions yet.').waitFor();
  t.is((await asAnn.page.goto(`${svc.url}/dashboard/test/extractions/${rec.extraction_id}`))?.status(), 404);
  await asAnn.context.close();
  await context.close();
});

browserTest('paging: extractions, keys and forms lists go page by page without repeating or losing a row', async (t) => {
  const c = await svc.agency(oauth.token, 'Paging Agency');
  const ids = await seedExtractionRows(svc.tdb.db.owner, { agencyId: c.agencyId, agentId: c.ownerId, mode: 'test', n: 57 });
  await svc.tdb.db.owner.query(
    `insert into app_public.api_keys (agency_id, name, mode, permissions, key_hash, prefix, last_four)
     select $1, 'paged key ' || g, 'test', 'read_only', sha256(convert_to($2 || g, 'UTF8')), 'svc_test_', lpad(g::text, 4, '0')
       from generate_series(1, 53) g`,
    [c.agencyId, `paged-${c.agencyId}-`],
  );
  await svc.tdb.db.owner.query(
    `insert into app_public.forms (agency_id, mode, name, insurance_line) select $1, 'test', 'Paged form ' || g, 'renters' from generate_series(1, 52) g`,
    [c.agencyId],
  );
  const { context, page } = await signedIn(c.ownerId, VIEWPORTS.phone);

  /** Every row-header text of a list, following "Older …" to the end. */
  const walk = async (start: string, what: string): Promise<string[]> => {
    const seen: string[] = [];
    await page.goto(`${svc.url}${start}`);
    for (let i = 0; i < 5; i++) {
      seen.push(...(await page.locator('tbody th[scope=row]').allInnerTexts()));
      const older = page.getByRole('link', { name: `Older ${what}` });
      if (!(await older.count())) break;
      await older.click();
      await page.getByRole('link', { name: `Newest ${what}` }).waitFor();
    }
    return seen;
  };
  const extractions = await walk('/dashboard/test/extractions', 'extractions');
  t.is(extractions.length, 57);
  t.is(new Set(extractions).size, 57, 'no row twice');
  t.is(ids.length, 57);
  await look(t, page, 'extractions-page-2');
  const keys = await walk('/dashboard/test/keys', 'keys');
  t.is(keys.length, 53);
  t.is(new Set(keys).size, 53);
  const forms = await walk('/dashboard/test/forms', 'forms');
  t.is(forms.length, 52);
  t.is(new Set(forms).size, 52);
  await look(t, page, 'forms-page-2');
  // The filters travel with the pages.
  await page.goto(`${svc.url}/dashboard/test/forms?status=draft`);
  t.regex((await page.getByRole('link', { name: 'Older forms' }).getAttribute('href')) ?? '', /status=draft&before=\d+/);
  await context.close();
});

browserTest('v1 subscriptions: created in the live view with the secret once, a test event in the test view’s log, deleted after confirming', async (t) => {
  const { context, page } = await signedIn(a.ownerId);
  await page.goto(`${svc.url}/dashboard/test/subscriptions`);
  await page.getByText('created and deleted in the live view').waitFor();
  t.is(await page.getByRole('button', { name: 'Subscribe' }).count(), 0, 'no create form in the test view');
  await page.getByRole('link', { name: 'live view' }).click();
  await page.getByText('Live data.').waitFor();
  await page.getByLabel('URL', { exact: true }).fill(`${receiver.url}/v1-hooks`);
  await page.getByLabel('Every event (*)').uncheck();
  await page.getByLabel('client-submission.complete').check();
  await page.getByLabel('Description (optional)').fill('CRM sync');
  await page.getByRole('button', { name: 'Subscribe' }).click();
  await page.getByText('it is shown only once').waitFor();
  const secret = await page.locator('[data-secret]').inputValue();
  t.true(secret.length >= 24);
  await look(t, page, 'subscriptions-created');
  const api = await svc.request('GET', '/v1/webhooks', { token: a.ownerToken });
  t.is(api.body.data.length, 1);
  t.deepEqual(api.body.data[0].events, ['client-submission.complete']);
  const uuid = api.body.data[0].uuid as string;
  await page.goto(`${svc.url}/dashboard/live/subscriptions`);
  t.false((await page.content()).includes(secret), 'shown once');

  // A bad URL is a 422 page that says which field.
  const csrf = await csrfOf(page);
  const bad = await page.request.post(`${svc.url}/dashboard/live/subscriptions`, { form: { _csrf: csrf, url: 'not a url', events: '*' } });
  t.is(bad.status(), 422);
  t.regex(await bad.text(), /url/);

  // Test event from the test view: delivered to the receiver and in the test view's log with its answer.
  receiver.script({ status: 202, headers: { 'x-receiver': 'v1' }, body: 'got it' });
  await page.goto(`${svc.url}/dashboard/test/subscriptions`);
  await page.getByRole('button', { name: /Send test event/ }).click();
  await page.waitForURL(/\/subscriptions\/[0-9a-f-]+\/deliveries\/\d+$/);
  const got = await receiver.waitFor(1);
  t.is(got.at(-1)!.path, '/v1-hooks');
  const { createHmac } = await import('node:crypto');
  t.is(got.at(-1)!.headers['x-signature'], createHmac('sha256', secret).update(got.at(-1)!.raw).digest('hex'));
  await reloadUntilHeading(page, /Attempt 1: 202/, 'the attempt in the log');
  t.true(await page.getByText('x-receiver: v1').isVisible());
  await look(t, page, 'subscription-delivery');
  await page.getByRole('link', { name: 'Back to the delivery log' }).click();
  t.is(await page.locator('tbody tr').count(), 1);
  await look(t, page, 'subscription-log');
  // The live view's log has no test-mode deliveries.
  await page.goto(`${svc.url}/dashboard/live/subscriptions/${uuid}/deliveries`);
  await page.getByText('No deliveries yet.').waitFor();

  // Another agency's subscription is a 404 page; deleting from the test view is refused.
  t.is((await page.request.post(`${svc.url}/dashboard/test/subscriptions/${uuid}/delete`, { form: { _csrf: csrf } })).status(), 404);
  const other = await signedIn(b.ownerId);
  t.is((await other.page.goto(`${svc.url}/dashboard/live/subscriptions/${uuid}/deliveries`))?.status(), 404);
  await other.context.close();

  await page.goto(`${svc.url}/dashboard/live/subscriptions`);
  await page.locator('summary', { hasText: 'Delete' }).click();
  await page.getByRole('button', { name: 'Delete the subscription now' }).click();
  await page.waitForURL(/\/live\/subscriptions$/);
  await page.getByText('No subscriptions yet.').waitFor();
  t.is((await svc.request('GET', `/v1/webhooks/${uuid}`, { token: a.ownerToken })).status, 404);
  await context.close();
});

browserTest('usage: requests this minute and today against the plan, and the refused ones', async (t) => {
  const c = await svc.agency(oauth.token, 'Usage Agency');
  const key = await svc.apiKey(c.ownerToken, c.agencyId, 'test');
  const statuses: number[] = [];
  // Free plan: 5 document submissions a minute. Seven (empty lease analyses, each a 400): five served, two refused (429).
  for (let i = 0; i < 7; i++) statuses.push((await svc.request('POST', '/api/analyze', { form: new FormData(), headers: { 'x-api-key': key } })).status);
  // A minute boundary between the requests would split them; the page is read right after.
  const { context, page } = await signedIn(c.ownerId, VIEWPORTS.phone);
  await page.goto(`${svc.url}/dashboard/live/usage`);
  await page.getByRole('heading', { name: 'Plan: free' }).waitFor();
  const served = statuses.filter((s) => s === 400).length;
  const refused = statuses.filter((s) => s === 429).length;
  t.is(served + refused, 7, statuses.join(','));
  t.true(refused >= 2, 'over the minute limit');
  t.is(await page.locator('[data-usage=day]').innerText(), String(served));
  t.is(await page.locator('[data-usage=rejected]').innerText(), String(refused));
  t.regex(await page.getByRole('region', { name: 'This minute' }).innerText(), /5 of 5 requests/);
  await look(t, page, 'usage-counts');
  await context.close();
});

browserTest('a bad mode, an unknown page or a bad parameter is an HTML page in the dashboard’s style, not JSON', async (t) => {
  const { context, page } = await signedIn(a.ownerId);
  const mode = await page.goto(`${svc.url}/dashboard/xyz/keys`);
  t.is(mode?.status(), 404);
  t.regex(mode?.headers()['content-type'] ?? '', /^text\/html/);
  await page.getByRole('heading', { name: 'Not found' }).waitFor();
  t.regex(mode?.headers()['content-security-policy'] ?? '', /frame-ancestors 'none'/);
  await look(t, page, 'bad-mode');
  await page.getByRole('link', { name: 'Go to the dashboard' }).click();
  await page.waitForURL(/\/dashboard\/test\/forms$/);

  const unknown = await page.goto(`${svc.url}/dashboard/test/nothing-here`);
  t.is(unknown?.status(), 404);
  t.regex(unknown?.headers()['content-type'] ?? '', /^text\/html/);
  const badQuery = await page.goto(`${svc.url}/dashboard/test/extractions?from=yesterday`);
  t.is(badQuery?.status(), 400);
  t.regex(badQuery?.headers()['content-type'] ?? '', /^text\/html/);
  await page.getByRole('heading', { name: 'Bad request' }).waitFor();
  t.regex(await page.content(), /YYYY-MM-DD/);
  await look(t, page, 'bad-request');
  const badId = await page.goto(`${svc.url}/dashboard/live/extractions/not-a-uuid`);
  t.is(badId?.status(), 400);
  t.is((await page.goto(`${svc.url}/dashboard/test/extractions?before=garbage`))?.status(), 400);
  // The API keeps its JSON errors.
  const api = await fetch(`${svc.url}/v2/forms/xyz`);
  t.regex(api.headers.get('content-type') ?? '', /json/);
  await context.close();
});
