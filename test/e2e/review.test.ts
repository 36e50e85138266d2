// Human review of uncertain fields in real Chromium (issue 34): the extraction page a person can read (a one-page
// certificate's fields beside its page on a laptop, cited boxes drawn on the page, the selected field's box
// highlighted); the review queue and page driven by the keyboard; an extraction held for review delivered once,
// with the corrected values and the reviewer, when its last field is reviewed; a correction after delivery. axe
// on every page; phone and desktop screenshots in the temp dir (dashboard-screens).
import { browserTest } from '../helpers/browser.ts';
import { csrfOf, look, signedIn as signedInTo, dashboardWorld } from '../helpers/dashboard.ts';
import { finished, uploadFinished } from '../helpers/extraction.ts';
import { eventually } from '../helpers/worker.ts';

const w = dashboardWorld();

const LAPTOP = { width: 1366, height: 768 };

browserTest(
  'extraction page: a one-page certificate’s fields beside its page on a laptop, cited boxes on the page, the selected field highlighted',
  async (t) => {
    t.timeout(240_000);
    const { svc, a, oauth } = w();
    const { rec } = await uploadFinished(t, svc, a, 'coi_alpha.pdf', oauth.token);
    t.is(rec.parsing_status, 'completed');
    const { context, page } = await signedInTo(w(), a.ownerId, LAPTOP);
    const url = `${svc.url}/dashboard/test/extractions/${rec.extraction_id}`;
    await page.goto(url);
    await page.getByRole('heading', { name: 'Extraction: coi_alpha.pdf' }).waitFor();
    const img = page.getByRole('img', { name: /Page 1 of coi_alpha\.pdf/ });
    await eventually(async () => (await img.evaluate((el: HTMLImageElement) => (el.complete ? el.naturalWidth : 0))) > 500, 30_000, 'the page image to load');
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    t.log(`extraction page of a one-page certificate at ${LAPTOP.width}×${LAPTOP.height}: ${height} px tall`);
    const fields = await page.locator('#fields-title').boundingBox();
    const pageBox = await img.boundingBox();
    t.truthy(fields && pageBox);
    // Side by side: the fields' heading and the page image start on the first screen, the image to the right.
    t.true(pageBox!.x > fields!.x + fields!.width, 'the page sits beside the fields');
    t.true(pageBox!.y < LAPTOP.height && fields!.y < LAPTOP.height, 'both start on the first screen');
    // The fields and the page scroll on their own beside each other: the page is a screen plus the header.
    t.true(height < 2 * LAPTOP.height, `the page is about a screen tall (${height} px)`);

    // Each field: value, confidence and a short cited span; no field repeats a whole coverage row.
    const number = rec.extracted_data.policy.policy_number as string;
    const row = page.getByRole('row', { name: /policy › policy number/i });
    t.regex(await row.innerText(), new RegExp(number));
    t.regex(await row.innerText(), /\d+%/);
    for (const q of await page.locator('q.dash-cite').allInnerTexts()) t.true(q.length <= 80, `a short span: ${q}`);

    // Cited boxes drawn on the page; choosing a field highlights its box and its row.
    t.true((await page.locator('svg.dash-pageview__boxes rect.dash-box').count()) > 5, 'boxes are drawn');
    await row.getByRole('link', { name: /Show page 1/ }).click();
    await page.locator('#selected-box').waitFor({ state: 'attached' });
    t.is(await page.locator('tr.is-selected').count(), 1);
    t.regex(await page.locator('tr.is-selected').innerText(), new RegExp(number));
    await look(t, page, 'extraction-readable');
    await context.close();
  },
);

browserTest(
  'a held extraction reviewed field by field with the keyboard: the webhook arrives once, with the corrected values and the reviewer; then a correction after delivery',
  async (t) => {
    t.timeout(240_000);
    const { svc, a, receiver } = w();
    const { key, rec } = await uploadFinished(t, svc, a, 'coi_alpha.pdf');
    const { context, page } = await signedInTo(w(), a.ownerId);

    // An admin turns hold for review on for test data.
    await page.goto(`${svc.url}/dashboard/test/review`);
    await page.getByRole('button', { name: 'Hold extractions with uncertain fields for review' }).click();
    await page.getByText('Hold for review is on').waitFor();
    await page.getByRole('button', { name: 'Share reviewed documents with the analysts' }).click();
    await page.getByText('Reviewed documents are shared with the service’s analysts').waitFor();
    await look(t, page, 'review-queue');
    t.true(
      [200, 201].includes(
        (await svc.request('PUT', '/v2/webhook-endpoints/client-submission', { token: key, json: { staging_url: `${receiver.url}/review-hook` } })).status,
      ),
    );

    // The engine was unsure of four values of a real certificate: the extraction completes through the real state
    // function (as extractions__complete calls it) and is held.
    const owner = svc.tdb.db.owner;
    const result = {
      ...rec.extracted_data,
      needs_review: ['/policy/policy_number', '/policy/expiration_date', '/certificate/producer', '/policyholder/organization'],
    };
    for (const p of result.needs_review) result.citations[p] = { ...result.citations[p], confidence: 0.5 };
    const { rows } = await owner.query<{ id: string }>(
      `insert into app_public.extractions (document_id, agency_id, agent_id, mode, entity_type, status, outcome, parsing_method, result)
     select document_id, agency_id, agent_id, mode, entity_type, 'processing', 'completed', 'text', $2::jsonb from app_public.extractions where id = $1 returning id`,
      [rec.extraction_id, JSON.stringify(result)],
    );
    const held = rows[0].id;
    const { citations: _c, ...data } = result;
    await owner.query('select app_private.complete_extraction($1, $2)', [held, JSON.stringify({ ...data, document_link: `${svc.url}/files/x` })]);
    const api = await svc.request('GET', `/api/v1/${a.ownerId}/policy/extractions/${held}`, { headers: { 'x-api-key': key } });
    t.is(api.body.parsing_status, 'needs_review');
    t.truthy(api.body.extracted_data, 'a held record shows what was read');

    // The queue, then the review page, by keyboard only.
    await page.goto(`${svc.url}/dashboard/test/review`);
    await page.getByRole('link', { name: 'coi_alpha.pdf' }).click();
    await page.getByRole('heading', { name: 'Review: coi_alpha.pdf' }).waitFor();
    await eventually(async () => (await page.locator('svg.dash-crop').count()) >= 3, 10_000, 'crops of the page');
    await look(t, page, 'review');
    const focused = () => page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.id ?? '');
    t.is(await focused(), 'value-0', 'the first field has the focus');
    // 1. the policy number as shown: Enter confirms it.
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Review: coi_alpha.pdf' }).waitFor();
    await eventually(async () => (await page.locator('ol.dash-review > li').count()) === 3, 10_000, 'three fields left');
    // 2. the expiration date corrected.
    t.is(await focused(), 'value-0');
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('2026-13-01');
    await page.keyboard.press('Enter');
    await page.getByText('expected a date, YYYY-MM-DD').waitFor();
    await page.locator('#value-0').focus();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('03/02/2026');
    await page.keyboard.press('Enter');
    await eventually(async () => (await page.locator('ol.dash-review > li').count()) === 2, 10_000, 'two fields left');
    // 3. the producer: not on the document (Alt+N).
    await page.locator('#value-0').focus();
    await page.keyboard.press('Alt+KeyN');
    await eventually(async () => (await page.locator('ol.dash-review > li').count()) === 1, 10_000, 'one field left');
    t.is(receiver.received.filter((r) => r.path === '/review-hook').length, 0, 'nothing delivered while fields wait');
    // 4. the insured corrected: the last field delivers.
    await page.locator('#value-0').focus();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('Beacon Hill Renovations, Inc.');
    await page.keyboard.press('Enter');
    await page.getByText('Every uncertain field of this extraction has been reviewed').waitFor();
    await look(t, page, 'review-done');

    const hooks = () => receiver.received.filter((r) => r.path === '/review-hook' && (r.json as any)?.topic === 'client-submission');
    await eventually(async () => hooks().length === 1, 30_000, 'the client-submission webhook');
    const body = hooks()[0].json as any;
    t.is(body.data.policy.policy_number, rec.extracted_data.policy.policy_number);
    t.is(body.data.policy.expiration_date, '2026-03-02');
    t.is(body.data.certificate.producer, null);
    t.is(body.data.policyholder.organization, 'Beacon Hill Renovations, Inc.');
    t.deepEqual(body.data.needs_review, []);
    t.like(body.data.review.reviewed_by, { id: a.ownerId });
    t.deepEqual(
      body.data.review.fields.map((f: any) => f.action),
      ['confirmed', 'corrected', 'not_on_document', 'corrected'],
    );
    const done = await finished(svc, key, a.ownerId, held);
    t.is(done.parsing_status, 'completed');
    t.is(done.extracted_data.policy.expiration_date, '2026-03-02');

    // Another agency, the other mode and a form without the session's CSRF token get nothing.
    const other = await signedInTo(w(), w().b.ownerId);
    t.is((await other.page.goto(`${svc.url}/dashboard/test/review/${held}`))?.status(), 404);
    t.is(
      (
        await other.page.request.post(`${svc.url}/dashboard/test/review/${held}`, {
          form: { _csrf: await csrfOf(other.page), pointer: '/policy/policy_number', action: 'save', value: 'X-1' },
        })
      ).status(),
      404,
    );
    await other.context.close();
    t.is((await page.goto(`${svc.url}/dashboard/live/review/${held}`))?.status(), 404);
    t.is(
      (
        await page.request.post(`${svc.url}/dashboard/test/review/${held}`, { form: { pointer: '/policy/policy_number', action: 'save', value: 'X-1' } })
      ).status(),
      403,
    );

    // A correction after delivery: from the extraction page's "correct" link; the record and the client follow.
    await page.goto(`${svc.url}/dashboard/test/extractions/${held}`);
    await page.getByRole('link', { name: 'Correct policyholder › address' }).click();
    await page.locator('#value-0').focus();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('22 Charles Street, Boston, MA 02114');
    await page.keyboard.press('Enter');
    await page.getByRole('cell', { name: 'corrected (after delivery)' }).waitFor();
    const after = await svc.request('GET', `/api/v1/${a.ownerId}/policy/extractions/${held}`, { headers: { 'x-api-key': key } });
    t.is(after.body.extracted_data.policyholder.address, '22 Charles Street, Boston, MA 02114');
    const updated = await owner.query(`select data from app_public.events where event_name = 'client.updated' and data #>> '{client,uuid}' = $1`, [
      after.body.client_uuid,
    ]);
    t.deepEqual(
      updated.rows.map((r) => r.data.changed_fields),
      [['address']],
    );
    // Still one client-submission delivery for the held extraction.
    await new Promise((r) => setTimeout(r, 1000));
    t.is(hooks().length, 1, 'the webhook arrived once');
    await context.close();
  },
);
