// A hosted form left part-way and finished elsewhere, in real Chromium: the consumer answers step 1, uploads a file on
// step 2 of a form embedded on a partner's page, presses "Save and finish later"; the partner's page gets
// `service:saved` with the resume link; the link, opened in a new browser context (no cookies, no storage), shows step 2
// with the answers and the file; submitting delivers exactly one webhook for one submission. Screenshots of the resumed
// form on a phone (390×844) and a desktop (1280×800) are written for people to look at.
import { mkdir } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { FormSubmissionData } from '../../pipelines/webhooks/payloads.ts';
import { assertAccessible, axe, browserTest, browserUnavailable } from '../helpers/browser.ts';
import { HOSTED_STEPS, TINY_PDF, publishedForm } from '../helpers/hosted.ts';
import { closeServer, listen, partnerPage, startHostedWorld, type HostedWorld } from '../helpers/hosted_browser.ts';
import { eventually } from '../helpers/worker.ts';
import test from 'ava';

let world: HostedWorld | undefined;
// Set when the world starts, before the first test.
let { svc, receiver, browser } = {} as HostedWorld;
let partner: http.Server;
let partnerOrigin: string;
let linkUrl: string;
let form: { id: number; public_id: string };
const screens = path.join(os.tmpdir(), 'hosted-form-screens');

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

const STEPS = [
  {
    id: 'about',
    name: 'About you',
    // The hosted form's first three: first name, last name, email address.
    questions: HOSTED_STEPS[0].questions.slice(0, 3),
  },
  {
    id: 'documents',
    name: 'Your current cover',
    questions: [
      { id: 'insurer', type: 'dropdown', label: 'Current insurer', options: ['Allstate', 'Progressive', 'State Farm', 'Other'] },
      { id: 'claims', type: 'single_choice', label: 'Any claims in the last five years?', required: true, options: ['Yes', 'No'] },
      {
        id: 'policy',
        type: 'file_upload',
        label: 'Current declarations page',
        required: true,
        help_text: 'A photo or PDF of the first page of your policy.',
        settings: { max_files: 2 },
      },
    ],
  },
  {
    id: 'finish',
    name: 'Anything else',
    questions: [{ id: 'notes', type: 'long_text', label: 'Anything else we should know?', acord_field: 'ACORD80.Remarks.Text' }],
  },
];

test.before(async () => {
  if (browserUnavailable) return;
  world = await startHostedWorld();
  ({ svc, receiver, browser } = world);
  const { a, key } = world;
  form = await publishedForm(svc, key, a.agencyId, 'Home insurance quote', STEPS);
  partner = partnerPage(() => `${linkUrl}&embed=1`, 1100);
  partnerOrigin = await listen(partner);
  const put = await svc.request('PUT', '/v2/embed-origins', { token: key, json: { origins: [partnerOrigin] } });
  if (put.status !== 200) throw new Error(put.text);
  const link = await svc.request('POST', `/v2/forms/${form.id}/links`, {
    token: key,
    json: { agent_id: a.ownerId, metadata: { crm_id: 'lead-9' } },
    headers: { 'Idempotency-Key': crypto.randomUUID() },
  });
  linkUrl = link.body.url;
  await mkdir(screens, { recursive: true });
});

test.after.always(async () => {
  await closeServer(partner);
  await world?.close();
});

type Message = { origin: string; data: { type: string; [k: string]: unknown } };

async function waitForMessage(page: Page, type: string): Promise<Message[]> {
  await page.waitForFunction((t) => (window as unknown as { __messages: Message[] }).__messages.some((m) => m.data?.type === t), type, { timeout: 15_000 });
  return page.evaluate(() => (window as unknown as { __messages: Message[] }).__messages);
}

const count = async (sql: string, values: unknown[]) => (await svc.tdb.db.owner.query(sql, values)).rows[0].n as number;

browserTest('left on step 2 with an upload, resumed in a new browser context, submitted once', async (t) => {
  // ---- Monday, on the partner's site: step 1, then step 2 with a file, then "Save and finish later".
  const first = await browser.newContext({ viewport: DESKTOP });
  const page = await first.newPage();
  const formOrigin = new URL(svc.url).origin;
  let resumeUrl: string;
  try {
    await page.goto(partnerOrigin);
    const frame = page.frameLocator('#quote');
    await frame.getByLabel('First name', { exact: true }).fill('Zoë');
    await frame.getByLabel('Last name', { exact: true }).fill('Alvarez');
    await frame.getByLabel('Email address').fill('zoe@example.com');
    await frame.getByRole('button', { name: 'Next' }).click();
    await frame.getByRole('heading', { name: 'Your current cover' }).waitFor();
    // Saved as the consumer goes: at the step change, then shortly after each change, without pressing anything.
    const draftRow = async () =>
      (await svc.tdb.db.owner.query(`select step, answers from app_public.form_drafts where form_id = $1`, [form.id])).rows[0] as
        { step: number; answers: Record<string, unknown> } | undefined;
    await eventually(async () => (await draftRow())?.step === 1, 10_000, 'the save at the step change');
    t.is((await draftRow())!.answers.first_name, 'Zoë');
    await frame.getByLabel('Current insurer').selectOption('Progressive');
    await eventually(async () => (await draftRow())?.answers.insurer === 'Progressive', 10_000, 'the debounced save');
    await frame.getByRole('group', { name: 'Any claims in the last five years?' }).getByLabel('No').check();
    await frame.getByLabel('Current declarations page').setInputFiles({ name: 'declarations.pdf', mimeType: 'application/pdf', buffer: TINY_PDF });
    await frame.getByText(/declarations\.pdf \(\d+ KB\)/).waitFor();
    await frame.getByRole('button', { name: 'Save and finish later' }).click();
    await frame.getByRole('heading', { name: 'Your answers are saved' }).waitFor();
    resumeUrl = await frame.getByLabel('Your link to this form').inputValue();
    const inner = page.frames().find((f) => f.url().startsWith(formOrigin))!;
    assertAccessible(t, await axe(inner), 'embedded form, saved for later');
    await page.screenshot({ path: path.join(screens, 'resume-saved-embedded.png'), fullPage: true });

    const all = await waitForMessage(page, 'service:saved');
    const saved = all.filter((m) => m.data.type === 'service:saved');
    t.is(saved.length, 1, 'one service:saved per press');
    t.is(saved[0].origin, formOrigin, 'from the form host, to the registered parent only');
    t.is(saved[0].data.resume_url, resumeUrl, 'the partner gets the link to email');
    t.true(Date.parse(saved[0].data.expires_at as string) > Date.now() + 6 * 86400_000, 'it works for FORM_DRAFT_TTL_HOURS (7 days)');
    t.regex(resumeUrl, new RegExp(`^${formOrigin}/[^/]+/form/${form.public_id}/home-insurance-quote\\?resume=`));
    t.notRegex(resumeUrl, /ctx=|embed=/, 'a link for a person: the page on its own, without the link’s context');
  } finally {
    await first.close();
  }
  t.is(await count('select count(*)::int n from app_public.submissions where form_id = $1', [form.id]), 0, 'a saved form is no submission');
  t.is(await count(`select count(*)::int n from app_public.events where data->'form'->>'public_id' = $1`, [form.public_id]), 0, 'and sends no webhook');
  t.is(receiver.received.length, 0);

  // ---- Later, on a phone: the link opens where the consumer left (screenshot; nothing changed).
  const phone = await browser.newContext({ viewport: PHONE, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  try {
    const p = await phone.newPage();
    await p.goto(resumeUrl);
    await p.getByRole('heading', { name: 'Your current cover' }).waitFor();
    await p.getByText(/declarations\.pdf \(\d+ KB\)/).waitFor();
    t.is(await p.locator('#step-count').textContent(), 'Step 2 of 3');
    assertAccessible(t, await axe(p), 'resumed form, phone');
    await p.screenshot({ path: path.join(screens, 'resume-phone.png'), fullPage: true });
    const width = await p.evaluate(() => document.documentElement.scrollWidth);
    t.true(width <= PHONE.width, `no sideways scrolling on a phone (${width}px)`);
    // The saved panel on a phone (saving again changes nothing but the link's expiry).
    await p.getByRole('button', { name: 'Save and finish later' }).click();
    await p.getByRole('heading', { name: 'Your answers are saved' }).waitFor();
    assertAccessible(t, await axe(p), 'saved panel, phone');
    await p.screenshot({ path: path.join(screens, 'resume-phone-saved.png'), fullPage: true });
  } finally {
    await phone.close();
  }

  // ---- On a desktop, in a new browser context: step 2, the answers and the file are there; finish and submit.
  const second = await browser.newContext({ viewport: DESKTOP });
  try {
    const p = await second.newPage();
    await p.goto(resumeUrl);
    await p.getByRole('heading', { name: 'Your current cover' }).waitFor();
    await p.getByText('Welcome back').waitFor();
    t.is(await p.locator('#step-count').textContent(), 'Step 2 of 3', 'the step it was left on');
    t.is(await p.getByLabel('Current insurer').inputValue(), 'Progressive');
    t.true(await p.getByRole('group', { name: 'Any claims in the last five years?' }).getByLabel('No').isChecked());
    t.true(await p.getByText(/declarations\.pdf \(\d+ KB\)/).isVisible(), 'the uploaded file');
    assertAccessible(t, await axe(p), 'resumed form, desktop');
    await p.screenshot({ path: path.join(screens, 'resume-desktop.png'), fullPage: true });
    // Step 1's answers came back too, and Back reaches them.
    await p.getByRole('button', { name: 'Back' }).click();
    await p.getByRole('heading', { name: 'About you' }).waitFor();
    t.is(await p.getByLabel('First name', { exact: true }).inputValue(), 'Zoë');
    t.is(await p.getByLabel('Email address').inputValue(), 'zoe@example.com');
    await p.getByRole('button', { name: 'Next' }).click();
    await p.getByRole('button', { name: 'Next' }).click();
    await p.getByRole('heading', { name: 'Anything else' }).waitFor();
    await p.getByLabel('Anything else we should know?').fill('Finished on another computer.');
    await p.getByRole('button', { name: 'Submit' }).click();
    await p.getByRole('heading', { name: /Thank you/ }).waitFor();
    const ref = Number(await p.locator('#submission-ref').textContent());

    const [hook] = await receiver.waitFor(1, 20_000);
    t.is(hook.json.topic, 'form-submission');
    const data = FormSubmissionData.parse(hook.json.data);
    t.is(data.submission_id, ref);
    t.deepEqual(data.metadata, { crm_id: 'lead-9' }, 'the signed link’s metadata, kept by the draft');
    const answers = Object.fromEntries(data.answers.map((a) => [a.question_id, a.value]));
    t.like(answers, { first_name: 'Zoë', last_name: 'Alvarez', insurer: 'Progressive', claims: 'No', notes: 'Finished on another computer.' });
    t.deepEqual(
      (answers.policy as { filename: string }[]).map((f) => f.filename),
      ['declarations.pdf'],
      'the file uploaded before leaving is part of the submission',
    );
    // Exactly one: wait for anything else that might follow, then count.
    await eventually(async () => (await count(`select count(*)::int n from graphile_worker.jobs`, [])) === 0, 20_000, 'the queue to drain');
    await new Promise((r) => setTimeout(r, 1000));
    t.is(receiver.received.length, 1, 'one webhook');
    t.is(await count('select count(*)::int n from app_public.submissions where form_id = $1', [form.id]), 1, 'one submission');
    t.is(await count(`select count(*)::int n from app_public.events where data->'form'->>'public_id' = $1`, [form.public_id]), 1, 'one event');
    t.is(
      await count(`select count(*)::int n from app_public.form_drafts where form_id = $1 and status = 'submitted' and submission_id = $2`, [form.id, ref]),
      1,
    );

    // The link now says the answers were sent.
    const late = await p.goto(resumeUrl);
    t.is(late?.status(), 410);
    await p.getByRole('heading', { name: 'These answers were already sent' }).waitFor();
  } finally {
    await second.close();
  }
  t.log(`screenshots in ${screens}`);
});
