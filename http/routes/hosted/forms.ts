// The hosted form (SPEC §4.5, §6.5): the page a consumer fills at {app_url}/{agentSlug}/form/{publicId}/{formSlug},
// its uploads, and its submission. Consumers are anonymous: the agent slug, the public id and (for links
// made by POST /v2/forms/{id}/links) a signed context decide the agency, agent and metadata; the server
// re-runs the form's rules on the snapshot the page was rendered from and never trusts the browser's view.
import { createHash, randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import type pg from 'pg';
import { z } from 'zod';
import { withIdentity, type Database } from '../../../db/pool.ts';
import {
  consumeRateLimit,
  createSubmission,
  submissionOfClientKey,
  formSnapshot,
  hostedForm,
  pendingUploads,
  recordUpload,
  type HostedFormRow,
} from '../../../db/queries/hosted_forms.ts';
import { createFormDraft, formDraft, saveFormDraft, submitFormDraft, type ResumedDraftRow } from '../../../db/queries/form_drafts.ts';
import { checkDraftToken, checkFormContext, formDraftKey, formLinkKey, signDraftToken } from '../../../lib/links.ts';
import { mapToAcord } from '../../../pipelines/acord/map.ts';
import { validateSubmission } from '../../../pipelines/forms/engine.ts';
import type { FormStructure, Question } from '../../../pipelines/forms/schema.ts';
import { contactOf, storedAnswers, type StoredFile } from '../../../pipelines/forms/submission.ts';
import { ApiError } from '../../errors.ts';
import { pageAssets } from '../../pages/assets.ts';
import { formBody, type FormPageData, type PageDraft } from '../../pages/form_page.ts';
import { html } from '../../pages/html.ts';
import { contentSecurityPolicy, layout, messagePage, type Brand } from '../../pages/layout.ts';
import { formSlug, hostedFormPath } from '../../pages/urls.ts';
import { presentAgency } from '../../presenters/agencies.ts';
import { route, type Deps } from '../../route.ts';
import { downloadName, keepUpload, readUpload, type Upload } from '../../uploads.ts';

const pageParams = z.object({ agentSlug: z.string().max(200), publicId: z.string().max(100), formSlug: z.string().max(300).optional() });
const formParams = z.object({ agentSlug: z.string().max(200), publicId: z.string().max(100) });
const pageQuery = z.object({ embed: z.string().optional(), ctx: z.string().max(12_000).optional(), resume: z.string().max(300).optional() });
/** A resume token (lib/links.ts signDraftToken): uuid, form, agent, expiry and MAC, well under this. */
const resumeToken = z.string().max(300);

/** Consumers act with no tenant identity: only the security-definer functions of the hosted page answer. */
const anonymous = <T>(db: Database, fn: (c: pg.PoolClient) => Promise<T>) => withIdentity(db, { role: 'system' }, fn);

const brandOf = (f: HostedFormRow, deps: Deps): Brand => ({
  name: f.agency_name,
  color: f.color_code,
  logoUrl: presentAgency({ id: f.agency_id, name: f.agency_name, color_code: f.color_code, logo_key: f.logo_key }, deps.cfg.publicUrl).logo_url,
});

type LinkCheck = { ok: true; metadata: Record<string, unknown> } | { ok: false; status: 403; title: string; message: string };

/** The link's signed context, if any: it must be intact, unexpired, and name this form and this agent. */
function linkContext(deps: Deps, token: string | undefined | null, f: HostedFormRow): LinkCheck {
  if (!token) return { ok: true, metadata: {} };
  const c = checkFormContext(formLinkKey(deps.secretKey), token);
  if (!c.ok) {
    return c.reason === 'expired'
      ? { ok: false, status: 403, title: 'This link has expired', message: 'Ask your agent for a new link to this form.' }
      : { ok: false, status: 403, title: 'This link is not valid', message: 'The link was changed or is incomplete. Ask your agent for a new link.' };
  }
  if (c.context.form_id !== f.form_id || c.context.agent_id !== f.agent_id) {
    return {
      ok: false,
      status: 403,
      title: 'This link is not valid',
      message: 'The link does not belong to this agent or form. Ask your agent for a new link.',
    };
  }
  return { ok: true, metadata: c.context.metadata };
}

function requireLink(deps: Deps, token: string | undefined | null, f: HostedFormRow): Record<string, unknown> {
  const c = linkContext(deps, token, f);
  if (!c.ok) throw new ApiError(c.status, `${c.title}. ${c.message}`, [], {}, 'link_refused');
  return c.metadata;
}

// ---- drafts: a form saved part-way, resumed from a signed link ---------------------------------------------

type DraftCheck = { ok: true; draftId: string } | { ok: false; status: 403 | 410; code: string; title: string; message: string };

/** A resume token: intact, unexpired, and naming this form and this agent (checked before any row is read). */
function draftAccess(deps: Deps, token: string, f: HostedFormRow): DraftCheck {
  const c = checkDraftToken(formDraftKey(deps.secretKey), token);
  if (!c.ok) {
    return c.reason === 'expired'
      ? {
          ok: false,
          status: 410,
          code: 'draft_expired',
          title: 'This saved form has expired',
          message: `Answers saved part-way are kept for ${ttlWords(deps)} after the last change. Start again from the link your agent sent.`,
        }
      : {
          ok: false,
          status: 403,
          code: 'link_refused',
          title: 'This link is not valid',
          message: 'The link was changed or is incomplete. Copy the whole link, or start again from the link your agent sent.',
        };
  }
  if (c.token.form_id !== f.form_id || c.token.agent_id !== f.agent_id) {
    return {
      ok: false,
      status: 403,
      code: 'link_refused',
      title: 'This link is not valid',
      message: 'The link belongs to another form or agent. Open it exactly as you received it.',
    };
  }
  return { ok: true, draftId: c.token.draft_id };
}

/** The draft a JSON call names by its resume token, or the refusal in the surface's problem shape (pointer /resume). */
function requireDraft(deps: Deps, token: string, f: HostedFormRow): string {
  const c = draftAccess(deps, token, f);
  if (!c.ok) throw new ApiError(c.status, `${c.title}. ${c.message}`, [{ field: '/resume', message: c.title.toLowerCase() }], {}, c.code);
  return c.draftId;
}

/** The state of a draft read from its row, as the refusal a save or submit gets (none while it is open). */
function draftGone(draft: ResumedDraftRow | undefined, deps: Deps): ApiError | null {
  if (!draft || draft.state === 'expired')
    return new ApiError(
      410,
      `This saved form has expired. Answers saved part-way are kept for ${ttlWords(deps)} after the last change.`,
      [{ field: '/resume', message: 'expired' }],
      {},
      'draft_expired',
    );
  if (draft.state === 'submitted')
    return new ApiError(
      409,
      'These answers were already sent; there is nothing more to do.',
      [{ field: '/resume', message: 'already submitted' }],
      {},
      'draft_submitted',
    );
  return null;
}

const ttlWords = (deps: Deps) => {
  const h = deps.cfg.FORM_DRAFT_TTL_HOURS;
  return h % 24 === 0 ? `${h / 24} day${h === 24 ? '' : 's'}` : `${h} hour${h === 1 ? '' : 's'}`;
};

/** The resume link of a draft (expiring with it) and its token. */
function resumeLink(deps: Deps, agentSlug: string, f: HostedFormRow, draft: { public_id: string; expires_at: Date }) {
  const token = signDraftToken(formDraftKey(deps.secretKey), {
    draft_id: draft.public_id,
    form_id: f.form_id,
    agent_id: f.agent_id,
    expires: Math.floor(draft.expires_at.getTime() / 1000),
  });
  const url = `${deps.cfg.appUrl}${hostedFormPath(agentSlug, f.public_id, f.form_name)}?resume=${token}`;
  return { resume_token: token, resume_url: url, expires_at: draft.expires_at.toISOString() };
}

/** What the page restores from a draft: the step, the answers as the fields hold them, the files it still holds. */
function pageDraft(deps: Deps, agentSlug: string, f: HostedFormRow, structure: FormStructure, d: ResumedDraftRow): PageDraft {
  const questions = fileQuestions(structure);
  const values: Record<string, unknown> = {};
  const files: PageDraft['files'] = {};
  const held = new Map(d.files.map((x) => [x.upload_id, x]));
  for (const [id, v] of Object.entries(d.answers)) {
    if (!questions.has(id)) {
      values[id] = v;
      continue;
    }
    // A file answer lists upload ids; only the uploads the draft still holds come back.
    const list = (Array.isArray(v) ? v : [])
      .map((x) => held.get(String((x as { upload_id?: unknown })?.upload_id ?? '')))
      .filter((x) => x !== undefined && x.question_id === id)
      .map((x) => ({ upload_id: x!.upload_id, filename: x!.filename, content_type: x!.content_type, size: x!.size }));
    if (list.length) files[id] = list;
  }
  const steps = structure.steps.length;
  return {
    ...resumeLink(deps, agentSlug, f, d),
    step: d.step < steps ? d.step : 0,
    history: d.step < steps ? d.history.filter((i) => i < steps) : [],
    values,
    files,
    client_key: d.client_key,
  };
}

/** Upload ids a set of answers names for the file questions of a structure. */
function namedUploads(structure: FormStructure, answers: Record<string, unknown>): string[] {
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
  return [...fileQuestions(structure).keys()]
    .flatMap((id) => (Array.isArray(answers[id]) ? (answers[id] as unknown[]) : []).map((x) => String((x as { upload_id?: unknown })?.upload_id ?? '')))
    .filter((id) => uuid.test(id));
}

/** What a draft save may not hold: answers to questions the form does not have, steps it does not have, files not named by upload id. */
function draftProblems(structure: FormStructure, body: z.infer<typeof draftBody>): { field: string; message: string }[] {
  const problems: { field: string; message: string }[] = [];
  const ids = new Map(structure.steps.flatMap((st) => st.questions).map((q) => [q.id, q]));
  const steps = structure.steps.length;
  if (body.step >= steps) problems.push({ field: '/step', message: `this form has ${steps} steps` });
  body.history.forEach((i, n) => {
    if (i >= steps) problems.push({ field: `/history/${n}`, message: `this form has ${steps} steps` });
  });
  for (const [id, v] of Object.entries(body.answers)) {
    const q = ids.get(id);
    const at = `/answers/${id.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (!q) problems.push({ field: at, message: 'not a question of this form' });
    else if (q.type === 'file_upload') {
      const ok =
        v === null ||
        (Array.isArray(v) &&
          v.length <= 20 &&
          v.every((x) => typeof x === 'object' && x !== null && typeof (x as { upload_id?: unknown }).upload_id === 'string'));
      if (!ok) problems.push({ field: at, message: 'must be a list of uploaded files, [{ upload_id }]' });
    }
  }
  return problems;
}

async function rateLimit(ctx: Context, deps: Deps, kind: 'upload' | 'submit' | 'draft', f: HostedFormRow, token: string | undefined | null): Promise<void> {
  // Per link and client address: a signed link, or the agent's plain link to the form, from one address
  // (a plain link is public, so one bucket for all of its consumers would let one of them block the rest).
  const link = token ? createHash('sha256').update(token).digest('hex').slice(0, 32) : `${f.agent_id}:${f.form_id}`;
  const who = `${link}:${ctx.ip}`;
  const limit =
    kind === 'upload'
      ? deps.cfg.RATE_LIMIT_UPLOADS_PER_WINDOW
      : kind === 'draft'
        ? deps.cfg.RATE_LIMIT_DRAFT_SAVES_PER_WINDOW
        : deps.cfg.RATE_LIMIT_SUBMISSIONS_PER_WINDOW;
  const r = await anonymous(deps.db, (c) => consumeRateLimit(c, `hosted-${kind}:${who}`, limit, deps.cfg.RATE_LIMIT_WINDOW_SECONDS));
  if (!r.allowed) {
    const retry = Math.max(1, r.reset_at - Math.floor(Date.now() / 1000));
    const what = kind === 'upload' ? 'uploads' : kind === 'draft' ? 'saves' : 'submissions';
    throw new ApiError(429, `too many ${what} from this link; try again shortly`, [], { 'Retry-After': String(retry) });
  }
}

async function sendPage(ctx: Context, status: number, body: string, csp: string): Promise<void> {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Content-Security-Policy', csp);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Referrer-Policy', 'strict-origin-when-cross-origin');
  ctx.body = body;
}

async function messageResponse(
  ctx: Context,
  deps: Deps,
  status: number,
  title: string,
  message: string,
  brand: Brand | null,
  frameAncestors: string[],
  embed: boolean,
): Promise<void> {
  const assets = await pageAssets();
  const nonce = randomBytes(16).toString('base64');
  const page = messagePage({ title, message, brand, stylesheetUrl: assets.stylesheet.url, nonce, embed });
  await sendPage(ctx, status, page.value, contentSecurityPolicy({ nonce, frameAncestors, imgOrigins: imgOrigins(deps) }));
}

const imgOrigins = (deps: Deps) => [...new Set([new URL(deps.cfg.publicUrl).origin, new URL(deps.cfg.appUrl).origin])];

/** Question ids of file uploads in a structure. */
const fileQuestions = (s: FormStructure) =>
  new Map(
    s.steps
      .flatMap((st) => st.questions)
      .filter((q) => q.type === 'file_upload')
      .map((q) => [q.id, q as Extract<Question, { type: 'file_upload' }>]),
  );

const submitBody = z
  .object({
    snapshot_id: z.number().int().positive(),
    answers: z.record(z.string().max(64), z.unknown()),
    ctx: z.string().max(12_000).nullish(),
    /** Drawn by the page once per filled form: a repeated submit returns the first submission. */
    client_key: z.string().uuid().nullish(),
    /** The resume token of the draft being submitted: the draft's metadata and key are used, and it is marked submitted. */
    resume: resumeToken.nullish(),
  })
  .strict();

const uploadBody = z.object({ question_id: z.string().min(1).max(64), ctx: z.string().max(12_000).optional(), resume: resumeToken.optional() });

/**
 * A draft save: the page's answers as its fields hold them (file questions as [{ upload_id }]), the step on screen
 * and the steps walked before it. Without `resume` it starts a draft (from the link's `ctx`), with it saves that one.
 */
const draftBody = z
  .object({
    snapshot_id: z.number().int().positive(),
    ctx: z.string().max(12_000).nullish(),
    resume: resumeToken.nullish(),
    client_key: z.string().uuid(),
    step: z.number().int().min(0).max(999),
    history: z.array(z.number().int().min(0).max(999)).max(200),
    answers: z.record(z.string().min(1).max(64), z.unknown()).refine((a) => Object.keys(a).length <= 500, { message: 'at most 500 answers' }),
  })
  .strict();

function acceptOk(q: Extract<Question, { type: 'file_upload' }>, filename: string, mime: string): boolean {
  const accept = q.settings?.accept;
  if (!accept?.length) return true;
  return accept.some((a) =>
    a.startsWith('.')
      ? filename.toLowerCase().endsWith(a) || (a === '.jpeg' && mime === 'image/jpeg')
      : a.endsWith('/*')
        ? mime.startsWith(a.slice(0, -1))
        : mime === a,
  );
}

export const hostedRoutes = [
  route({
    method: 'get',
    path: '/assets/:file',
    operationId: 'pageAsset',
    summary: 'Scripts and styles of the pages (content-hashed names)',
    tags: ['Pages'],
    auth: 'none',
    params: z.object({ file: z.string().max(100) }),
    responses: { 200: { description: 'The asset' }, 404: { description: 'No such asset' } },
    handler: async (ctx, { params }) => {
      const a = (await pageAssets()).byUrl.get(`/assets/${params.file}`);
      if (!a) throw new ApiError(404, 'no such asset');
      ctx.type = a.type;
      ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.vary('Accept-Encoding');
      if (ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
        ctx.set('Content-Encoding', 'gzip');
        ctx.body = a.gzip;
      } else ctx.body = a.body;
    },
  }),
  route({
    method: 'get',
    path: '/:agentSlug/form/:publicId{/:formSlug}',
    operationId: 'hostedFormPage',
    summary: 'The hosted form page (HTML); embed=1 renders only the form; resume=<token> reopens a form saved part-way',
    tags: ['Pages'],
    auth: 'none',
    params: pageParams,
    query: pageQuery,
    responses: {
      200: { description: 'HTML page' },
      302: { description: 'To the URL with the form’s slug' },
      403: { description: 'A changed or expired link, or a resume link of another form or agent' },
      404: { description: 'No such form for this agent' },
      410: { description: 'A resume link whose saved form expired or was already submitted' },
    },
    handler: async (ctx, { params, query }, deps) => {
      const embed = query.embed === '1';
      const f = await anonymous(deps.db, (c) => hostedForm(c, params.agentSlug, params.publicId));
      if (!f) {
        await messageResponse(
          ctx,
          deps,
          404,
          'This form isn’t available',
          'The link may be mistyped, or the form is no longer offered. Please check with the agent who sent it.',
          null,
          [],
          embed,
        );
        return;
      }
      const brand = brandOf(f, deps);
      // A resume link carries the draft (which holds the signed link's metadata) instead of the link's context.
      const link = query.resume ? ({ ok: true } as const) : linkContext(deps, query.ctx, f);
      if (!link.ok) {
        await messageResponse(ctx, deps, link.status, link.title, link.message, brand, f.embed_origins, embed);
        return;
      }
      const slug = formSlug(f.form_name);
      if (params.formSlug !== slug) {
        ctx.status = 302;
        ctx.redirect(`${hostedFormPath(params.agentSlug, f.public_id, f.form_name)}${ctx.querystring ? `?${ctx.querystring}` : ''}`);
        return;
      }
      let structure = f.structure;
      let snapshotId = f.snapshot_id;
      let draft: PageDraft | null = null;
      if (query.resume) {
        const access = draftAccess(deps, query.resume, f);
        if (!access.ok) {
          await messageResponse(ctx, deps, access.status, access.title, access.message, brand, f.embed_origins, embed);
          return;
        }
        const row = await anonymous(deps.db, (c) => formDraft(c, access.draftId));
        if (!row || row.state === 'expired') {
          const title = 'This saved form has expired';
          const message = `Answers saved part-way are kept for ${ttlWords(deps)} after the last change. Start again from the link your agent sent.`;
          await messageResponse(ctx, deps, 410, title, message, brand, f.embed_origins, embed);
          return;
        }
        if (row.state === 'submitted') {
          const message = `${f.agency_name} has them; there is nothing more to do. To send new answers, start again from the link your agent sent.`;
          await messageResponse(ctx, deps, 410, 'These answers were already sent', message, brand, f.embed_origins, embed);
          return;
        }
        // The page is the version of the form the draft was filled on (the submit is checked against it too).
        if (row.snapshot_id !== f.snapshot_id) {
          const snap = await anonymous(deps.db, (c) => formSnapshot(c, f.form_id, row.snapshot_id));
          if (snap) {
            structure = snap.structure;
            snapshotId = row.snapshot_id;
          }
        }
        draft = pageDraft(deps, params.agentSlug, f, structure, snapshotId === row.snapshot_id ? row : { ...row, answers: {}, step: 0, history: [] });
      }
      const assets = await pageAssets();
      const nonce = randomBytes(16).toString('base64');
      const base = `/${encodeURIComponent(params.agentSlug)}/form/${encodeURIComponent(f.public_id)}`;
      const data: FormPageData = {
        structure,
        snapshot_id: snapshotId,
        public_id: f.public_id,
        submit_url: `${base}/submissions`,
        upload_url: `${base}/uploads`,
        draft_url: `${base}/drafts`,
        ctx: query.resume ? null : (query.ctx ?? null),
        draft,
        origins: f.embed_origins,
        max_upload_bytes: deps.cfg.MAX_UPLOAD_BYTES,
      };
      const agentName = `${f.agent_first_name} ${f.agent_last_name}`;
      const page = layout({
        title: `${f.form_name} · ${f.agency_name}`,
        brand,
        embed,
        nonce,
        stylesheetUrl: assets.stylesheet.url,
        scriptUrls: [assets.scripts.form.url],
        body: formBody({ title: f.form_name, agentName, agencyName: f.agency_name, data, testMode: f.mode === 'test', resumed: draft !== null }),
        footer: html`<footer class="site-footer"><p>Your answers go securely to <strong>${f.agency_name}</strong>. Your agent: ${agentName}.</p></footer>`,
      });
      await sendPage(ctx, 200, page.value, contentSecurityPolicy({ nonce, frameAncestors: f.embed_origins, imgOrigins: imgOrigins(deps) }));
    },
  }),
  route({
    method: 'post',
    path: '/:agentSlug/form/:publicId/uploads',
    operationId: 'hostedFormUpload',
    summary: 'Upload one file for a file_upload question; answers (and drafts) refer to it by upload_id',
    tags: ['Pages'],
    auth: 'none',
    params: formParams,
    body: uploadBody,
    files: { file: { description: 'The document (PDF, JPEG or PNG, by its bytes)', required: true } },
    responses: {
      201: { description: '{ upload_id, filename, content_type, size }' },
      403: { description: 'A changed or expired link' },
      404: { description: 'No such form' },
      413: { description: 'Too large' },
      415: { description: 'Not an accepted type' },
      429: { description: 'Too many uploads' },
    },
    handler: async (ctx, { params, body, files }, deps) => {
      const f = await anonymous(deps.db, (c) => hostedForm(c, params.agentSlug, params.publicId));
      if (!f) throw new ApiError(404, 'form not found');
      // A resumed page has the draft's token instead of the link's context.
      const draftId = body.resume ? requireDraft(deps, body.resume, f) : (requireLink(deps, body.ctx, f), null);
      await rateLimit(ctx, deps, 'upload', f, draftId ? `draft:${draftId}` : body.ctx);
      const q = fileQuestions(f.structure).get(body.question_id);
      if (!q) throw new ApiError(422, 'question_id is not a file question of this form', [{ field: '/question_id', message: 'not a file_upload question' }]);
      const file = files.file!;
      const max = Math.min(q.settings?.max_file_bytes ?? deps.cfg.MAX_UPLOAD_BYTES, deps.cfg.MAX_UPLOAD_BYTES);
      if (file.size > max)
        throw new ApiError(
          413,
          `the file is larger than ${Math.round(max / 1024 / 1024)} MB`,
          [{ field: '/file', message: `at most ${max} bytes` }],
          {},
          'payload_too_large',
        );
      let upload: Upload;
      try {
        upload = await readUpload(file, { maxBytes: max, maxImagePixels: deps.cfg.MAX_IMAGE_PIXELS });
      } catch (err) {
        throw new ApiError(
          415,
          `this file can’t be used: ${(err as Error).message}`,
          [{ field: '/file', message: 'send a PDF, JPG or PNG' }],
          {},
          'unsupported_media_type',
        );
      }
      const { sniffed, bytes } = upload;
      const filename = downloadName(file.originalFilename, sniffed.kind);
      if (!acceptOk(q, filename, sniffed.mime)) {
        throw new ApiError(
          415,
          `this question accepts ${q.settings?.accept?.join(', ')}`,
          [{ field: '/file', message: 'type not accepted' }],
          {},
          'unsupported_media_type',
        );
      }
      const { blobKey } = await keepUpload(deps.blobs, upload, 'uploads');
      const uploadId = await anonymous(deps.db, (c) =>
        recordUpload(c, { formId: f.form_id, agentId: f.agent_id, questionId: q.id, blobKey, filename, contentType: sniffed.mime, size: bytes.length }),
      );
      ctx.status = 201;
      ctx.body = { upload_id: uploadId, filename, content_type: sniffed.mime, size: bytes.length };
    },
  }),
  route({
    method: 'post',
    path: '/:agentSlug/form/:publicId/drafts',
    operationId: 'hostedFormSaveDraft',
    summary: 'Save the answers part-way: starts a draft (without resume) or saves the one its resume token names; answers its resume link',
    tags: ['Pages'],
    auth: 'none',
    params: formParams,
    body: draftBody,
    responses: {
      200: { description: '{ resume_token, resume_url, expires_at } of the saved draft (its lifetime starts again)' },
      201: { description: 'The same, for a new draft' },
      403: { description: 'A changed or expired link, or a resume token of another form or agent' },
      404: { description: 'No such form' },
      409: { description: 'The draft was already submitted' },
      410: { description: 'The draft has expired' },
      413: { description: 'The answers are larger than FORM_DRAFT_MAX_BYTES' },
      422: { description: 'Answers that are not questions of the form, a step out of range, a stale snapshot' },
      429: { description: 'Too many saves' },
    },
    handler: async (ctx, { params, body }, deps) => {
      const f = await anonymous(deps.db, (c) => hostedForm(c, params.agentSlug, params.publicId));
      if (!f) throw new ApiError(404, 'form not found');
      const draftId = body.resume ? requireDraft(deps, body.resume, f) : null;
      const metadata = draftId ? {} : requireLink(deps, body.ctx, f);
      const max = deps.cfg.FORM_DRAFT_MAX_BYTES;
      const size = Buffer.byteLength(JSON.stringify(body.answers));
      if (size > max)
        throw new ApiError(
          413,
          `the answers are too large to save (${Math.ceil(size / 1024)} KB; at most ${Math.floor(max / 1024)} KB)`,
          [{ field: '/answers', message: `at most ${max} bytes of JSON` }],
          {},
          'payload_too_large',
        );
      await rateLimit(ctx, deps, 'draft', f, draftId ? `draft:${draftId}` : body.ctx);
      const ttlSeconds = deps.cfg.FORM_DRAFT_TTL_HOURS * 3600;
      const saved = await anonymous(deps.db, async (c) => {
        const existing = draftId ? await formDraft(c, draftId) : undefined;
        if (draftId) {
          const gone = draftGone(existing, deps);
          if (gone) throw gone;
        }
        const snapshotId = existing?.snapshot_id ?? body.snapshot_id;
        const snap =
          body.snapshot_id !== snapshotId
            ? undefined
            : snapshotId === f.snapshot_id
              ? { structure: f.structure }
              : await formSnapshot(c, f.form_id, snapshotId);
        if (!snap)
          throw new ApiError(422, 'this page is out of date; reload it to see the current form', [
            { field: '/snapshot_id', message: existing ? 'not the version of the form this draft was saved on' : 'not a published version of this form' },
          ]);
        const problems = draftProblems(snap.structure, body);
        if (problems.length) throw new ApiError(422, 'the saved answers do not fit this form', problems);
        const content = { step: body.step, history: body.history, answers: body.answers, uploadIds: namedUploads(snap.structure, body.answers) };
        const common = { ...content, formId: f.form_id, agentId: f.agent_id, ttlSeconds };
        return draftId
          ? { created: false, row: await saveFormDraft(c, draftId, common) }
          : { created: true, row: await createFormDraft(c, { ...common, snapshotId, metadata, clientKey: body.client_key }) };
      });
      ctx.status = saved.created ? 201 : 200;
      ctx.body = resumeLink(deps, params.agentSlug, f, saved.row);
    },
  }),
  route({
    method: 'post',
    path: '/:agentSlug/form/:publicId/submissions',
    operationId: 'hostedFormSubmit',
    summary: 'Submit the answers; checked on the server against the snapshot the page was rendered from',
    tags: ['Pages'],
    auth: 'none',
    params: formParams,
    body: submitBody,
    responses: {
      201: { description: '{ submission_id, trace_id }; the same answer again for a repeated client_key (header Idempotent-Replayed: true)' },
      403: { description: 'A changed or expired link, or a resume token of another form or agent' },
      409: { description: 'The draft named by resume was already submitted (by another submit)' },
      410: { description: 'The draft named by resume has expired' },
      404: { description: 'No such form' },
      422: { description: 'Field errors, each with its JSON pointer' },
      429: { description: 'Too many submissions' },
    },
    handler: async (ctx, { params, body }, deps) => {
      const f = await anonymous(deps.db, (c) => hostedForm(c, params.agentSlug, params.publicId));
      if (!f) throw new ApiError(404, 'form not found');
      const draftId = body.resume ? requireDraft(deps, body.resume, f) : null;
      const linkMetadata = draftId ? {} : requireLink(deps, body.ctx, f);
      await rateLimit(ctx, deps, 'submit', f, draftId ? `draft:${draftId}` : body.ctx);
      const created = await anonymous(deps.db, async (c) => {
        const draft = draftId ? await formDraft(c, draftId) : undefined;
        // Every submit of a draft carries the draft's key, from whichever browser it was resumed in: one submission.
        const clientKey = draft?.client_key ?? body.client_key ?? null;
        // A retry of a submit that went through: its uploads are claimed already, so answer before checking.
        const earlier = clientKey ? await submissionOfClientKey(c, f.form_id, clientKey) : undefined;
        if (earlier) return earlier;
        if (draftId) {
          const gone = draftGone(draft, deps);
          if (gone) throw gone;
        }
        // A draft carries the metadata of the signed link it was started from (checked then).
        const metadata = draft ? draft.metadata : linkMetadata;
        // The page may have been rendered from a snapshot replaced since: check against that one.
        const snap = body.snapshot_id === f.snapshot_id ? { structure: f.structure } : await formSnapshot(c, f.form_id, body.snapshot_id);
        if (!snap)
          throw new ApiError(422, 'this page is out of date; reload it to see the current form', [
            { field: '/snapshot_id', message: 'not a published version of this form' },
          ]);
        const structure = snap.structure;
        // File answers name uploads by id; they become the stored files (name, type, size, blob).
        const questions = fileQuestions(structure);
        const answers: Record<string, unknown> = { ...body.answers };
        const problems: { field: string; message: string }[] = [];
        const wanted = [...questions.keys()].flatMap((id) =>
          (Array.isArray(answers[id]) ? (answers[id] as unknown[]) : []).map((x) => String((x as { upload_id?: unknown })?.upload_id ?? '')),
        );
        const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
        const found = new Map(
          (
            await pendingUploads(
              c,
              f.form_id,
              wanted.filter((id) => uuid.test(id)),
            )
          ).map((u) => [u.public_id, u]),
        );
        for (const id of questions.keys()) {
          const v = answers[id];
          if (v === undefined || v === null) continue;
          if (!Array.isArray(v)) {
            problems.push({ field: `/answers/${id}`, message: 'must be a list of uploaded files' });
            continue;
          }
          answers[id] = v.map((x, i) => {
            const u = found.get(String((x as { upload_id?: unknown })?.upload_id ?? ''));
            if (!u || u.question_id !== id) {
              problems.push({ field: `/answers/${id}/${i}`, message: 'this file was not uploaded to this question (upload it again)' });
              return x;
            }
            return {
              filename: u.filename,
              content_type: u.content_type,
              size: u.size_bytes,
              blob_key: u.blob_key,
              upload_id: u.public_id,
            } satisfies StoredFile;
          });
        }
        const check = validateSubmission(structure, answers);
        const errors = [
          ...problems.filter((p) => !check.dropped.some((d) => p.field.startsWith(`/answers/${d.question_id}`))),
          ...check.errors.map((e) => ({ field: e.path, message: e.message })),
        ];
        if (errors.length) throw new ApiError(422, 'some answers need attention', errors);
        const stored = storedAnswers(structure, check.answers);
        const uploadIds = stored.filter((a) => a.type === 'file_upload').flatMap((a) => (a.value as StoredFile[]).map((x) => x.upload_id));
        const made = await createSubmission(c, {
          formId: f.form_id,
          snapshotId: body.snapshot_id,
          agentId: f.agent_id,
          answers: stored,
          contact: contactOf(structure, check.answers) as Record<string, string> | null,
          metadata,
          acordFormIds: mapToAcord(structure, check.answers).form_ids,
          uploadIds,
          clientKey,
        });
        // The draft is spent in the same transaction: submitted, its answers dropped (the submission has them).
        if (draftId) await submitFormDraft(c, draftId, f.form_id, f.agent_id, made.id);
        return made;
      });
      if (created.replayed) ctx.set('Idempotent-Replayed', 'true');
      ctx.status = 201;
      ctx.body = { submission_id: created.id, trace_id: created.trace_id };
    },
  }),
];
