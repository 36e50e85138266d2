// Hosted forms saved part-way, over HTTP: the page saves a draft tied to its link, the resume link reopens it (step,
// answers, files) without the link's context, a draft is no submission (no event, no job) until it is submitted through
// the submit route, which spends it; a resume token works for its own form and agent only, and expires; saves are
// bounded in size and shape. The submit retried after a lost answer still returns the first submission (0016).
import test from 'ava';
import { formDraftKey, signDraftToken } from '../../lib/links.ts';
import { HOSTED_STEPS, OWNER_ANSWERS, TINY_PDF, agencyWithForm, publishedForm, type AgencyWithForm } from '../helpers/hosted.ts';
import { startService, type TestService } from '../helpers/server.ts';

let svc: TestService;
// Set before the first test.
let { agencyId, ownerId, slug, key, oauth, form } = {} as AgencyWithForm;
let other: { id: number; public_id: string };

test.before(async () => {
  svc = await startService({
    RATE_LIMIT_UPLOADS_PER_WINDOW: '1000',
    RATE_LIMIT_SUBMISSIONS_PER_WINDOW: '1000',
    RATE_LIMIT_DRAFT_SAVES_PER_WINDOW: '1000',
    FORM_DRAFT_MAX_BYTES: '4096',
  });
  ({ agencyId, ownerId, slug, key, oauth, form } = await agencyWithForm(svc));
  other = await publishedForm(svc, key, agencyId, 'Second form');
});
test.after.always(async () => svc?.close());

const base = (f = form, s = slug) => `/${s}/form/${f.public_id}`;
const pagePath = (f = form, s = slug) => `${base(f, s)}/${f === form ? 'home-insurance-quote' : 'second-form'}`;

/** The page's data block (what web/form.ts reads). */
function pageData(text: string): any {
  const m = /<script type="application\/json" id="form-data">(.*?)<\/script>/s.exec(text);
  if (!m) throw new Error(`no form data in: ${text.slice(0, 200)}`);
  return JSON.parse(m[1]);
}

async function signedLink(f = form, agentId = ownerId, metadata: Record<string, unknown> = { crm_id: 'lead-42' }): Promise<{ path: string; ctx: string }> {
  const r = await svc.request('POST', `/v2/forms/${f.id}/links`, {
    token: key,
    json: { agent_id: agentId, metadata },
    headers: { 'Idempotency-Key': crypto.randomUUID() },
  });
  if (r.status !== 201) throw new Error(r.text);
  const u = new URL(r.body.url);
  return { path: u.pathname + u.search, ctx: u.searchParams.get('ctx')! };
}

function upload(o: { ctx?: string; resume?: string; f?: typeof form; s?: string; name?: string }) {
  const fd = new FormData();
  fd.append('question_id', 'declarations');
  if (o.ctx) fd.append('ctx', o.ctx);
  if (o.resume) fd.append('resume', o.resume);
  fd.append('file', new Blob([new Uint8Array(TINY_PDF)]), o.name ?? 'declarations.pdf');
  return svc.request('POST', `${base(o.f, o.s)}/uploads`, { form: fd });
}

const saveDraft = (json: Record<string, unknown>, f = form, s = slug) => svc.request('POST', `${base(f, s)}/drafts`, { json });
const submit = (json: Record<string, unknown>, f = form, s = slug) => svc.request('POST', `${base(f, s)}/submissions`, { json });

const q = (sql: string, values: unknown[] = []) => svc.tdb.db.owner.query(sql, values);
const finalizeJobs = async (f: { id: number }) =>
  (
    await q(
      `select count(*)::int n from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id
         join app_public.submissions s on s.id = (j.payload->>'submission_id')::bigint
        where k.identifier = 'submissions__finalize' and s.form_id = $1`,
      [f.id],
    )
  ).rows[0].n;
const eventsOf = async (f: { public_id: string }) =>
  (await q(`select count(*)::int n from app_public.events where data->'form'->>'public_id' = $1`, [f.public_id])).rows[0].n;

/** Step 1 and 2 answered, the consumer on step 3 with a file attached (OWNER_ANSWERS without the notes). */
function partAnswers(uploadId: string) {
  const { notes: _notes, ...rest } = OWNER_ANSWERS;
  return { ...rest, declarations: [{ upload_id: uploadId }] };
}

test.serial('a signed link’s page saves a draft; the resume link reopens step, answers and files; submitting it spends it, once', async (t) => {
  const link = await signedLink();
  const page = await svc.request('GET', link.path);
  t.is(page.status, 200);
  const data = pageData(page.text);
  t.is(data.draft, null);
  t.is(data.draft_url, `${base()}/drafts`);
  t.regex(page.text, /Save and finish later/);
  const up = await upload({ ctx: link.ctx });
  t.is(up.status, 201, up.text);
  const clientKey = crypto.randomUUID();
  const first = await saveDraft({
    snapshot_id: data.snapshot_id,
    ctx: link.ctx,
    client_key: clientKey,
    step: 2,
    history: [0, 1],
    answers: partAnswers(up.body.upload_id),
  });
  t.is(first.status, 201, first.text);
  t.deepEqual(Object.keys(first.body).sort(), ['expires_at', 'resume_token', 'resume_url']);
  const expires = Date.parse(first.body.expires_at);
  t.true(Math.abs(expires - (Date.now() + 168 * 3600_000)) < 60_000, 'FORM_DRAFT_TTL_HOURS (7 days) from the save');
  const resume = new URL(first.body.resume_url);
  t.is(resume.origin, new URL(svc.cfg.appUrl).origin);
  t.is(resume.pathname, pagePath());
  t.is(resume.searchParams.get('resume'), first.body.resume_token);
  t.is(resume.searchParams.get('ctx'), null, 'the resume link does not carry the link’s context');
  t.is(await eventsOf(form), 0, 'a draft emits no event');
  t.is(await finalizeJobs(form), 0, 'and queues no submission work');

  // The resume link, in another browser: the page comes back on step 3 with the answers and the file.
  const again = await svc.request('GET', resume.pathname + resume.search);
  t.is(again.status, 200, again.text);
  t.regex(again.text, /Welcome back/);
  const restored = pageData(again.text).draft;
  t.like(restored, { step: 2, history: [0, 1], client_key: clientKey });
  t.deepEqual(restored.values, Object.fromEntries(Object.entries(partAnswers('')).filter(([k]) => k !== 'declarations')));
  t.deepEqual(restored.files, {
    declarations: [{ upload_id: up.body.upload_id, filename: 'declarations.pdf', content_type: 'application/pdf', size: TINY_PDF.length }],
  });
  t.is(pageData(again.text).ctx, null);

  // The resumed page keeps saving (the lifetime starts again), uploads with the draft's token, then submits.
  const token = restored.resume_token;
  const second = await upload({ resume: token, name: 'second.pdf' });
  t.is(second.status, 201, second.text);
  const answers = {
    ...partAnswers(up.body.upload_id),
    declarations: [{ upload_id: up.body.upload_id }, { upload_id: second.body.upload_id }],
    notes: 'Dog is friendly.',
  };
  const saved = await saveDraft({ snapshot_id: data.snapshot_id, resume: token, client_key: clientKey, step: 2, history: [0, 1], answers });
  t.is(saved.status, 200, saved.text);
  t.true(Date.parse(saved.body.expires_at) >= expires);
  const sent = await submit({ snapshot_id: data.snapshot_id, resume: saved.body.resume_token, client_key: clientKey, answers });
  t.is(sent.status, 201, sent.text);
  const row = (await q('select metadata, answers, agent_id from app_public.submissions where id = $1', [sent.body.submission_id])).rows[0];
  t.deepEqual(row.metadata, { crm_id: 'lead-42' }, 'the signed link’s metadata came with the draft');
  t.is(row.agent_id, ownerId);
  t.deepEqual(
    row.answers.find((x: { question_id: string }) => x.question_id === 'declarations').value.map((f: { filename: string }) => f.filename),
    ['declarations.pdf', 'second.pdf'],
  );
  const draft = (await q('select status, answers, submission_id from app_public.form_drafts where submission_id = $1', [sent.body.submission_id])).rows[0];
  t.like(draft, { status: 'submitted', answers: {} }, 'the draft is spent and no longer keeps the answers');
  t.is(await finalizeJobs(form), 1, 'one submission to finish and deliver');

  // The answer was lost: the same submit again returns the first submission (0016), even from another browser's key.
  const retry = await submit({ snapshot_id: data.snapshot_id, resume: saved.body.resume_token, client_key: clientKey, answers });
  t.is(retry.status, 201, retry.text);
  t.is(retry.body.submission_id, sent.body.submission_id);
  t.is(retry.headers.get('idempotent-replayed'), 'true');
  const elsewhere = await submit({ snapshot_id: data.snapshot_id, resume: saved.body.resume_token, client_key: crypto.randomUUID(), answers });
  t.is(elsewhere.body.submission_id, sent.body.submission_id, 'a draft’s submits all carry its key');
  t.is((await q('select count(*)::int n from app_public.submissions where form_id = $1', [form.id])).rows[0].n, 1);
  t.is(await finalizeJobs(form), 1);

  // Spent: the link says so, and the draft takes no more saves.
  const late = await svc.request('GET', resume.pathname + resume.search);
  t.is(late.status, 410);
  t.regex(late.text, /These answers were already sent/);
  const after = await saveDraft({ snapshot_id: data.snapshot_id, resume: token, client_key: clientKey, step: 2, history: [0, 1], answers });
  t.is(after.status, 409);
  t.is(after.headers.get('content-type'), 'application/problem+json');
  t.is(after.body.code, 'draft_submitted');
});

test('a submit retried after a lost answer returns the first submission (0016), without a draft too', async (t) => {
  const page = pageData((await svc.request('GET', pagePath())).text);
  const body = { snapshot_id: page.snapshot_id, client_key: crypto.randomUUID(), answers: OWNER_ANSWERS };
  const a = await submit(body);
  t.is(a.status, 201, a.text);
  const b = await submit(body);
  t.is(b.status, 201);
  t.is(b.body.submission_id, a.body.submission_id);
  t.is(b.headers.get('idempotent-replayed'), 'true');
  t.is((await q('select count(*)::int n from app_public.submissions where client_key = $1', [body.client_key])).rows[0].n, 1);
});

test('a resume token is refused by another form and another agent, on the page and in every call, in the surface’s shape', async (t) => {
  const page = pageData((await svc.request('GET', pagePath())).text);
  const d = await saveDraft({ snapshot_id: page.snapshot_id, client_key: crypto.randomUUID(), step: 0, history: [], answers: { first_name: 'Kim' } });
  t.is(d.status, 201, d.text);
  const token = d.body.resume_token as string;
  const agent = await svc.request('POST', `/v1/agencies/${agencyId}/agents`, {
    token: oauth,
    json: { first_name: 'Sam', last_name: 'Other', email: `sam${Date.now()}@example.com` },
  });
  const otherSlug = agent.body.data.slug as string;

  for (const [what, path] of [
    ['another form', `${pagePath(other)}?resume=${token}`],
    ['another agent', `${pagePath(form, otherSlug)}?resume=${token}`],
  ]) {
    const r = await svc.request('GET', path);
    t.is(r.status, 403, what);
    t.regex(r.text, /This link is not valid/, what);
    t.regex(r.text, /belongs to another form or agent/, what);
    t.regex(r.headers.get('content-type')!, /text\/html/);
  }
  const otherPage = pageData((await svc.request('GET', pagePath(other))).text);
  const calls = [
    [
      'save, another form',
      () => saveDraft({ snapshot_id: otherPage.snapshot_id, resume: token, client_key: crypto.randomUUID(), step: 0, history: [], answers: {} }, other),
    ],
    [
      'save, another agent',
      () => saveDraft({ snapshot_id: page.snapshot_id, resume: token, client_key: crypto.randomUUID(), step: 0, history: [], answers: {} }, form, otherSlug),
    ],
    ['upload, another form', () => upload({ resume: token, f: other })],
    ['upload, another agent', () => upload({ resume: token, s: otherSlug })],
    ['submit, another form', () => submit({ snapshot_id: otherPage.snapshot_id, resume: token, answers: {} }, other)],
    ['submit, another agent', () => submit({ snapshot_id: page.snapshot_id, resume: token, answers: OWNER_ANSWERS }, form, otherSlug)],
  ] as const;
  for (const [what, call] of calls) {
    const r = await call();
    t.is(r.status, 403, `${what}: ${r.text}`);
    t.is(r.headers.get('content-type'), 'application/problem+json', what);
    t.like(r.body, { status: 403, title: 'Forbidden', code: 'link_refused' }, what);
    t.regex(r.body.detail, /belongs to another form or agent/, what);
    t.deepEqual(
      r.body.errors.map((e: { pointer: string }) => e.pointer),
      ['/resume'],
      what,
    );
  }
  t.is((await q('select count(*)::int n from app_public.submissions where form_id = $1 and agent_id <> $2', [form.id, ownerId])).rows[0].n, 0);

  // A changed token (another agent written into it) does not verify at all.
  const parts = token.split('.');
  const forged = [parts[0], parts[1], String(agent.body.data.id), parts[3], parts[4]].join('.');
  const r = await svc.request('GET', `${pagePath(form, otherSlug)}?resume=${forged}`);
  t.is(r.status, 403);
  t.regex(r.text, /changed or is incomplete/);
  t.is(
    (await saveDraft({ snapshot_id: page.snapshot_id, resume: forged, client_key: crypto.randomUUID(), step: 0, history: [], answers: {} }, form, otherSlug))
      .status,
    403,
  );
  // The draft itself is untouched and still opens where it belongs.
  t.is((await svc.request('GET', `${pagePath()}?resume=${token}`)).status, 200);
});

test('an expired resume link or draft is refused with 410, on the page and in the calls', async (t) => {
  const page = pageData((await svc.request('GET', pagePath())).text);
  const d = await saveDraft({ snapshot_id: page.snapshot_id, client_key: crypto.randomUUID(), step: 0, history: [], answers: { first_name: 'Kim' } });
  const draftId = (d.body.resume_token as string).split('.')[0];
  const stale = signDraftToken(formDraftKey(svc.deps.secretKey), {
    draft_id: draftId,
    form_id: form.id,
    agent_id: ownerId,
    expires: Math.floor(Date.now() / 1000) - 5,
  });
  const p = await svc.request('GET', `${pagePath()}?resume=${stale}`);
  t.is(p.status, 410);
  t.regex(p.text, /This saved form has expired/);
  t.regex(p.text, /7 days/);
  const s = await saveDraft({ snapshot_id: page.snapshot_id, resume: stale, client_key: crypto.randomUUID(), step: 0, history: [], answers: {} });
  t.is(s.status, 410);
  t.is(s.body.code, 'draft_expired');
  // The row expired (the purge has not run yet): the same, with a token that has not.
  await q(`update app_public.form_drafts set expires_at = now() - interval '1 second', created_at = now() - interval '1 day' where public_id = $1`, [draftId]);
  t.is((await svc.request('GET', `${pagePath()}?resume=${d.body.resume_token}`)).status, 410);
  const save = await saveDraft({
    snapshot_id: page.snapshot_id,
    resume: d.body.resume_token,
    client_key: crypto.randomUUID(),
    step: 0,
    history: [],
    answers: {},
  });
  t.is(save.status, 410);
  t.is(save.body.code, 'draft_expired');
  const sub = await submit({ snapshot_id: page.snapshot_id, resume: d.body.resume_token, answers: OWNER_ANSWERS });
  t.is(sub.status, 410, sub.text);
  // Purged: gone the same way.
  await q('delete from app_public.form_drafts where public_id = $1', [draftId]);
  t.is((await svc.request('GET', `${pagePath()}?resume=${d.body.resume_token}`)).status, 410);
});

test('draft saves are bounded: size (413), questions, steps and files of the form (422), the body’s shape', async (t) => {
  const page = pageData((await svc.request('GET', pagePath())).text);
  const ok = { snapshot_id: page.snapshot_id, client_key: crypto.randomUUID(), step: 0, history: [] as number[], answers: {} as Record<string, unknown> };
  const big = await saveDraft({ ...ok, answers: { notes: 'x'.repeat(5000) } });
  t.is(big.status, 413);
  t.is(big.headers.get('content-type'), 'application/problem+json');
  t.is(big.body.code, 'payload_too_large');
  t.regex(big.body.detail, /too large to save .*at most 4 KB/);
  t.is(big.body.errors[0].pointer, '/answers');
  const wrong = await saveDraft({ ...ok, step: 3, history: [0, 7], answers: { nope: 1, declarations: 'file.pdf', first_name: 'Kim' } });
  t.is(wrong.status, 422, wrong.text);
  t.deepEqual(wrong.body.errors.map((e: { pointer: string }) => e.pointer).sort(), ['/answers/declarations', '/answers/nope', '/history/1', '/step']);
  for (const [what, body] of [
    ['no client key', { ...ok, client_key: undefined }],
    ['a client key that is not a UUID', { ...ok, client_key: 'abc' }],
    ['a negative step', { ...ok, step: -1 }],
    ['an unknown field', { ...ok, extra: true }],
    ['too many answers', { ...ok, answers: Object.fromEntries(Array.from({ length: 501 }, (_, i) => [`q${i}`, 1])) }],
    ['a long question id', { ...ok, answers: { ['q'.repeat(65)]: 1 } }],
  ] as const) {
    const r = await saveDraft(body as Record<string, unknown>);
    t.is(r.status, 422, `${what}: ${r.text}`);
  }
  t.is((await saveDraft({ ...ok, snapshot_id: 999_999 })).status, 422, 'a snapshot that is not of this form');
  t.is((await q(`select count(*)::int n from app_public.form_drafts where client_key = $1`, [ok.client_key])).rows[0].n, 0, 'nothing refused was stored');
});

test('a draft saved on a version of the form replaced since reopens that version and submits against it', async (t) => {
  const c = await svc.oauthClient();
  const a = await svc.agency(c.token);
  const k = await svc.apiKey(a.ownerToken, a.agencyId, 'test');
  const steps = [{ id: 's1', name: 'Only step', questions: [{ id: 'nick', type: 'short_text', label: 'Nickname' }] }];
  const f = await publishedForm(svc, k, a.agencyId, 'Quick quote', steps);
  const path = `/${a.slug}/form/${f.public_id}/quick-quote`;
  const v1 = pageData((await svc.request('GET', path)).text);
  const d = await saveDraft({ snapshot_id: v1.snapshot_id, client_key: crypto.randomUUID(), step: 0, history: [], answers: { nick: 'Zed' } }, f, a.slug);
  t.is(d.status, 201, d.text);
  const w = (method: string, p: string, json?: unknown) => svc.request(method, p, { token: k, json, headers: { 'Idempotency-Key': crypto.randomUUID() } });
  await w('PATCH', `/v2/forms/${f.id}`, {
    steps: [{ ...steps[0], questions: [...steps[0].questions, { id: 'age', type: 'number', label: 'Age', required: true }] }],
  });
  await w('POST', `/v2/forms/${f.id}/publish`);
  const resumed = pageData((await svc.request('GET', `${path}?resume=${d.body.resume_token}`)).text);
  t.is(resumed.snapshot_id, v1.snapshot_id, 'the version the answers were given on');
  t.deepEqual(
    resumed.structure.steps[0].questions.map((x: { id: string }) => x.id),
    ['nick'],
  );
  t.deepEqual(resumed.draft.values, { nick: 'Zed' });
  const v2 = pageData((await svc.request('GET', path)).text).snapshot_id;
  t.not(v2, v1.snapshot_id);
  const stale = await saveDraft(
    { snapshot_id: v2, resume: d.body.resume_token, client_key: crypto.randomUUID(), step: 0, history: [], answers: {} },
    f,
    a.slug,
  );
  t.is(stale.status, 422);
  t.is(stale.body.errors[0].pointer, '/snapshot_id');
  const sent = await submit({ snapshot_id: v1.snapshot_id, resume: d.body.resume_token, answers: { nick: 'Zed' } }, f, a.slug);
  t.is(sent.status, 201, sent.text);
});

test('draft saves are rate-limited per link', async (t) => {
  const limited = await startService({ RATE_LIMIT_DRAFT_SAVES_PER_WINDOW: '2', RATE_LIMIT_WINDOW_SECONDS: '3600' });
  try {
    const c = await limited.oauthClient();
    const a = await limited.agency(c.token);
    const k = await limited.apiKey(a.ownerToken, a.agencyId, 'test');
    const f = await publishedForm(limited, k, a.agencyId, 'Home insurance quote', HOSTED_STEPS);
    const snapshot = pageData((await limited.request('GET', `/${a.slug}/form/${f.public_id}/home-insurance-quote`)).text).snapshot_id;
    const save = () =>
      limited.request('POST', `/${a.slug}/form/${f.public_id}/drafts`, {
        json: { snapshot_id: snapshot, client_key: crypto.randomUUID(), step: 0, history: [], answers: {} },
      });
    t.deepEqual([(await save()).status, (await save()).status], [201, 201]);
    const third = await save();
    t.is(third.status, 429);
    t.truthy(third.headers.get('retry-after'));
    t.regex(third.body.detail, /too many saves/);
  } finally {
    await limited.close();
  }
});
