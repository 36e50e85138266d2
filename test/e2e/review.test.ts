// Human review of uncertain fields in real Chromium (issue 34): the extraction page a person can read (a one-page
// certificate's fields beside its page on a laptop, cited boxes drawn on the page, the selected field's box
// highlighted); the review queue and page driven by the keyboard; an extraction held for review delivered once,
// with the corrected values and the reviewer, when its last field is reviewed; a correction after delivery. axe
// on every page; phone and desktop screenshots in the temp dir (dashboard-screens).
import test from 'ava';
import { browserTest, browserUnavailable } from '../helpers/browser.ts';
import { look, signedIn as signedInTo, startDashboardWorld, type DashboardWorld } from '../helpers/dashboard.ts';
import { finished, policyFixture, upload } from '../helpers/extraction.ts';
import { eventually } from '../helpers/worker.ts';

let w: DashboardWorld;
test.before(async () => {
  if (browserUnavailable) return;
  w = await startDashboardWorld();
});
test.after.always(async () => w?.close());

const LAPTOP = { width: 1366, height: 768 };

browserTest('extraction page: a one-page certificate’s fields beside its page on a laptop, cited boxes on the page, the selected field highlighted', async (t) => {
  t.timeout(240_000);
  const { svc, a, oauth } = w;
  const key = await svc.apiKey(a.ownerToken, a.agencyId, 'test');
  await svc.request('PUT', `/v1/agencies/${a.agencyId}/plan`, { token: oauth.token, json: { plan: 'enterprise', per_minute: 10_000, per_day: 100_000 } });
  const up = await upload(svc, key, a.ownerId, policyFixture('coi_alpha.pdf'), 'coi_alpha.pdf');
  t.is(up.status, 200, up.text);
  const rec = await finished(svc, key, a.ownerId, up.body.extraction_id);
  t.is(rec.parsing_status, 'completed');
  const { context, page } = await signedInTo(w, a.ownerId, LAPTOP);
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
});
