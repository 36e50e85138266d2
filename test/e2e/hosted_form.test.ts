// The hosted form in real Chromium: a partner page on one origin embeds the form from another; the four
// messages arrive in order from the form's origin; the rules show and hide questions as the consumer types;
// an upload works; submitting delivers the §6.3 webhook to a local receiver; an unlisted origin gets a blank
// frame; axe finds no serious violations; phone and desktop screenshots are written for people to look at.
import { mkdir } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import type { FrameLocator, Page } from 'playwright-core';
import { FormSubmissionData } from '../../pipelines/webhooks/payloads.ts';
import { assertAccessible, axe, browserTest, browserUnavailable, VIEWPORTS } from '../helpers/browser.ts';
import { TINY_PDF, publishedForm } from '../helpers/hosted.ts';
import { closeServer, listen, partnerPage, startHostedWorld, type HostedWorld } from '../helpers/hosted_browser.ts';
import { eventually } from '../helpers/worker.ts';

let world: HostedWorld | undefined;
// Set when the world starts, before the first test.
let { svc, receiver, browser } = {} as HostedWorld;
let listed: http.Server;
let unlisted: http.Server;
let listedOrigin: string;
let unlistedOrigin: string;
let formUrl: string;
let linkUrl: string;
let dropUrl: string;
let callback: { id: number; public_id: string; url: string };
const screens = path.join(os.tmpdir(), 'hosted-form-screens');

test.before(async () => {
  if (browserUnavailable) return;
  world = await startHostedWorld();
  ({ svc, receiver, browser } = world);
  const { a, key } = world;
  const form = await publishedForm(svc, key, a.agencyId);
  listed = partnerPage(() => `${linkUrl}&embed=1`);
  unlisted = partnerPage(() => `${formUrl}?embed=1`);
  listedOrigin = await listen(listed);
  unlistedOrigin = await listen(unlisted);
  const put = await svc.request('PUT', '/v2/embed-origins', { token: key, json: { origins: [listedOrigin] } });
  if (put.status !== 200) throw new Error(put.text);
  formUrl = `${svc.url}/${a.slug}/form/${form.public_id}/home-insurance-quote`;
  const link = await svc.request('POST', `/v2/forms/${form.id}/links`, {
    token: key,
    json: { agent_id: a.ownerId, metadata: { crm_id: 'lead-7' } },
    headers: { 'Idempotency-Key': crypto.randomUUID() },
  });
  linkUrl = link.body.url;
  const drop = await publishedForm(svc, key, a.agencyId, 'Send documents', [
    {
      id: 'one',
      name: 'Your documents',
      questions: [
        { id: 'who', type: 'short_text', label: 'Your name', required: true },
        { id: 'files', type: 'file_upload', label: 'Documents', required: true, settings: { max_files: 3 } },
      ],
    },
    { id: 'two', name: 'Confirm', questions: [{ id: 'ok', type: 'single_choice', label: 'Send them now?', required: true, options: ['Yes'] }] },
  ]);
  dropUrl = `${svc.url}/${a.slug}/form/${drop.public_id}/send-documents`;
  const cb = await publishedForm(svc, key, a.agencyId, 'Call me back', [
    { id: 'one', name: 'Call me back', questions: [{ id: 'name', type: 'short_text', label: 'Your name', required: true }] },
  ]);
  callback = { ...cb, url: `${svc.url}/${a.slug}/form/${cb.public_id}/call-me-back` };
  await mkdir(screens, { recursive: true });
});

test.after.always(async () => {
  for (const s of [listed, unlisted]) await closeServer(s);
  await world?.close();
});

type Message = { origin: string; data: { type: string; [k: string]: unknown } };
const messages = (page: Page) => page.evaluate(() => (window as unknown as { __messages: Message[] }).__messages);

async function waitForMessage(page: Page, type: string): Promise<Message[]> {
  await page.waitForFunction((t) => (window as unknown as { __messages: Message[] }).__messages.some((m) => m.data?.type === t), type, { timeout: 15_000 });
  return messages(page);
}

async function isVisible(frame: FrameLocator, label: string): Promise<boolean> {
  return frame.getByLabel(label, { exact: true }).isVisible();
}

browserTest('embedded on a registered origin: logic, upload, messages in order and the webhook', async (t) => {
  const page = await browser.newPage({ viewport: VIEWPORTS.desktop });
  try {
    await page.goto(listedOrigin);
    const frame = page.frameLocator('#quote');
    await waitForMessage(page, 'service:resize');
    const formOrigin = new URL(svc.url).origin;

    // Step 1: the show rule reacts as the consumer answers.
    await frame.getByLabel('First name', { exact: true }).fill('Zoë');
    await frame.getByLabel('Last name', { exact: true }).fill('Alvarez');
    await frame.getByLabel('Email address').fill('zoe@example.com');
    await frame.getByLabel('Phone number').fill('512 555 0142');
    t.false(await isVisible(frame, 'How many pets?'), 'hidden until pets = Yes');
    const pets = frame.getByRole('group', { name: 'Do you have pets?' });
    await pets.getByLabel('Yes').check();
    t.true(await isVisible(frame, 'How many pets?'), 'shown on Yes');
    await pets.getByLabel('No').check();
    t.false(await isVisible(frame, 'How many pets?'), 'hidden again on No');
    await pets.getByLabel('Yes').check();
    // Next refuses while a shown, required question is empty, and says which.
    await frame.getByRole('group', { name: 'Do you rent your home?' }).getByLabel('No').check();
    await frame.getByRole('button', { name: 'Next' }).click();
    await frame.getByText('One answer needs attention').waitFor();
    t.is(await frame.getByLabel('How many pets?').getAttribute('aria-invalid'), 'true');
    await frame.getByLabel('How many pets?').fill('2');
    await frame.getByRole('button', { name: 'Next' }).click();

    // Step 2: address parts, a dropdown, a multi-choice and a data table with add/remove.
    await frame.getByRole('heading', { name: 'Your home' }).waitFor();
    t.true(await frame.getByRole('button', { name: 'Back' }).isVisible());
    await frame.getByLabel('Street address').fill('12 Elm St');
    await frame.getByLabel('City').fill('Austin');
    await frame.getByLabel('State').fill('TX');
    await frame.getByLabel('ZIP code').fill('78701');
    await frame.getByLabel('Year built').fill('1998');
    await frame.getByLabel('Roof type').selectOption('Metal');
    await frame.getByLabel('Smoke detectors').check();
    await frame.getByLabel('Full name').first().fill('Zoë Alvarez');
    await frame.getByRole('button', { name: /Add resident/ }).click();
    t.is(await frame.getByLabel('Full name').count(), 2);
    await frame.getByLabel('Full name').nth(1).fill('Sam Alvarez');
    await frame.getByRole('button', { name: /Remove Resident 2/ }).click();
    t.is(await frame.getByLabel('Full name').count(), 1);
    await frame.getByRole('button', { name: 'Next' }).click();

    // Step 3: an upload goes first; the answer keeps its reference.
    await frame.getByRole('heading', { name: 'Documents' }).waitFor();
    await frame.getByLabel('Current declarations page').setInputFiles({ name: 'declarations.pdf', mimeType: 'application/pdf', buffer: TINY_PDF });
    await frame.getByText(/declarations\.pdf \(\d+ KB\)/).waitFor();
    await frame.getByLabel('Anything else we should know?').fill('Dog is friendly.');
    t.true(await frame.getByRole('button', { name: 'Submit' }).isVisible());
    t.false(await frame.getByRole('button', { name: 'Next' }).isVisible());
    const inner = page.frames().find((f) => f.url().startsWith(formOrigin))!;
    assertAccessible(t, await axe(inner), 'embedded form, documents step');
    await page.screenshot({ path: path.join(screens, 'embedded-documents.png'), fullPage: true });
    await frame.getByRole('button', { name: 'Submit' }).click();
    await frame.getByRole('heading', { name: /Thank you/ }).waitFor();
    await page.screenshot({ path: path.join(screens, 'embedded-done.png') });

    const all = await waitForMessage(page, 'service:completed');
    t.true(
      all.every((m) => m.origin === formOrigin),
      'every message comes from the form origin',
    );
    const types = all.map((m) => m.data.type);
    const first = (type: string) => types.indexOf(type);
    t.true(first('service:loaded') === 0, 'loaded first');
    t.true(first('service:resize') > first('service:loaded'));
    t.true(first('service:step') > first('service:resize'));
    t.true(first('service:completed') > first('service:step'));
    t.is(types.lastIndexOf('service:completed'), first('service:completed'));
    const steps = all.filter((m) => m.data.type === 'service:step').map((m) => m.data);
    t.deepEqual(steps, [
      { type: 'service:step', index: 1, total: 3 },
      { type: 'service:step', index: 2, total: 3 },
    ]);
    t.true(all.filter((m) => m.data.type === 'service:resize').every((m) => typeof m.data.height === 'number' && (m.data.height as number) > 100));
    const completed = all.find((m) => m.data.type === 'service:completed')!.data;

    const [hook] = await receiver.waitFor(1);
    t.is(hook.json.topic, 'form-submission');
    const data = FormSubmissionData.parse(hook.json.data);
    t.is(data.submission_id, completed.submission_id as number);
    t.deepEqual(data.metadata, { crm_id: 'lead-7' });
    t.deepEqual(data.contact, { name: 'Zoë Alvarez', email: 'zoe@example.com', phone: '512 555 0142' });
    const answers = Object.fromEntries(data.answers.map((a) => [a.question_id, a.value]));
    t.deepEqual(answers.household, [{ name: 'Zoë Alvarez' }]);
    t.deepEqual(answers.home_address, { line1: '12 Elm St', city: 'Austin', state: 'TX', postal_code: '78701' });
    t.is(answers.pet_count, 2);
    t.is((answers.declarations as { filename: string }[])[0].filename, 'declarations.pdf');
    t.deepEqual(data.acord?.form_ids, ['80']);
  } finally {
    await page.close();
  }
});

browserTest('a submit whose answer was lost is sent again with the same key: one submission, one webhook', async (t) => {
  const page = await browser.newPage({ viewport: VIEWPORTS.desktop });
  try {
    let calls = 0;
    await page.route('**/submissions', async (route) => {
      if (calls++ > 0) return route.continue();
      await route.fetch(); // the server stores the submission…
      await route.abort('connectionreset'); // …and its answer never reaches the page
    });
    await page.goto(callback.url);
    await page.getByLabel('Your name').fill('Kim Lee');
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.getByText(/The connection failed/).waitFor();
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.getByRole('heading', { name: /Thank you/ }).waitFor();
    t.is(calls, 2);
    const ref = Number(await page.locator('#submission-ref').textContent());
    const rows = await svc.tdb.db.owner.query('select id, client_key from app_public.submissions where form_id = $1', [callback.id]);
    t.deepEqual(
      rows.rows.map((r) => Number(r.id)),
      [ref],
      'the retry got the first submission back',
    );
    t.regex(rows.rows[0].client_key, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    await eventually(async () => receiver.received.some((r) => r.json?.data?.submission_id === ref), 20_000, 'the webhook');
    const events = await svc.tdb.db.owner.query(`select count(*)::int n from app_public.events where data->'form'->>'public_id' = $1`, [callback.public_id]);
    t.is(events.rows[0].n, 1, 'one webhook event for the one submission');
  } finally {
    await page.close();
  }
});

browserTest('an unlisted origin gets a blank frame and no messages', async (t) => {
  const page = await browser.newPage({ viewport: VIEWPORTS.desktop });
  try {
    const refused = page.waitForEvent('console', { predicate: (m) => /frame-ancestors/.test(m.text()), timeout: 10_000 }).catch(() => null);
    await page.goto(unlistedOrigin);
    await page.waitForLoadState('load');
    t.truthy(await refused, 'Chromium reports the frame-ancestors refusal');
    const frame = page.frames().find((f) => f !== page.mainFrame());
    t.truthy(frame);
    t.false(frame!.url().startsWith(new URL(svc.url).origin) && (await frame!.locator('#svc-form').count()) > 0, 'the form is not rendered');
    t.is(await page.frameLocator('#quote').locator('#svc-form').count(), 0);
    t.deepEqual(await messages(page), []);
  } finally {
    await page.close();
  }
});

browserTest('a reload keeps the answers and the uploaded files of a half-finished form', async (t) => {
  const page = await browser.newPage({ viewport: VIEWPORTS.phone });
  try {
    await page.goto(dropUrl);
    await page.getByLabel('Your name').fill('Kim Lee');
    await page.getByLabel('Documents', { exact: true }).setInputFiles([
      { name: 'policy.pdf', mimeType: 'application/pdf', buffer: TINY_PDF },
      { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('plain text is refused by its bytes') },
    ]);
    await page.getByText(/policy\.pdf \(\d+ KB\)/).waitFor();
    await page.getByText(/can’t be used/).waitFor();
    t.is(await page.getByLabel('Documents', { exact: true }).getAttribute('aria-invalid'), 'true', 'the refused file is reported on its field');
    await page.reload();
    await page.getByText(/policy\.pdf \(\d+ KB\)/).waitFor();
    t.is(await page.getByLabel('Your name').inputValue(), 'Kim Lee');
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByRole('group', { name: 'Send them now?' }).getByLabel('Yes').check();
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.getByRole('heading', { name: /Thank you/ }).waitFor();
    const id = Number(await page.locator('#submission-ref').textContent());
    const row = await svc.tdb.db.owner.query('select answers from app_public.submissions where id = $1', [id]);
    const files = row.rows[0].answers.find((a: { question_id: string }) => a.question_id === 'files').value;
    t.deepEqual(
      files.map((f: { filename: string }) => f.filename),
      ['policy.pdf'],
      'the upload made before the reload is part of the submission',
    );
  } finally {
    await page.close();
  }
});

browserTest('the standalone page is accessible and readable on a phone and a desktop (screenshots written)', async (t) => {
  for (const [name, viewport] of Object.entries(VIEWPORTS)) {
    const page = await browser.newPage({ viewport, deviceScaleFactor: name === 'phone' ? 2 : 1 });
    try {
      await page.goto(formUrl);
      await page.getByLabel('First name', { exact: true }).waitFor();
      assertAccessible(t, await axe(page), `${name}, first step`);
      await page.screenshot({ path: path.join(screens, `${name}-step1.png`), fullPage: true });
      // The field-level errors, as a consumer who presses Next too early sees them.
      await page.getByRole('button', { name: 'Next' }).click();
      await page.getByText(/answers need attention/).waitFor();
      assertAccessible(t, await axe(page), `${name}, errors shown`);
      await page.screenshot({ path: path.join(screens, `${name}-errors.png`), fullPage: true });
      await page.getByLabel('First name', { exact: true }).fill('Zoë');
      await page.getByLabel('Last name', { exact: true }).fill('Alvarez');
      await page.getByLabel('Email address').fill('zoe@example.com');
      await page.getByRole('group', { name: 'Do you have pets?' }).getByLabel('No').check();
      await page.getByRole('group', { name: 'Do you rent your home?' }).getByLabel('No').check();
      await page.getByRole('button', { name: 'Next' }).click();
      await page.getByRole('heading', { name: 'Your home' }).waitFor();
      assertAccessible(t, await axe(page), `${name}, second step`);
      await page.screenshot({ path: path.join(screens, `${name}-step2.png`), fullPage: true });
      const missing = await page.goto(formUrl.replace(/\/form\/f_[^/]+/, '/form/f_doesnotexist0'));
      t.is(missing?.status(), 404);
      await page.getByRole('heading', { name: 'This form isn’t available' }).waitFor();
      assertAccessible(t, await axe(page), `${name}, 404 page`);
      await page.screenshot({ path: path.join(screens, `${name}-404.png`), fullPage: true });
    } finally {
      await page.close();
    }
  }
  t.log(`screenshots in ${screens}`);
});
