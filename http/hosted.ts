// What the hosted form's routes share (http/routes/hosted/forms.ts): the signed link and resume-token checks, the
// draft a resume link opens, the per-form rate limits, the page and message responses, and the request bodies.
import { createHash, randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import type pg from 'pg';
import { z } from 'zod';
import { withIdentity, type Database } from '../db/pool.ts';
import { consumeRateLimit, hostedForm, type HostedFormRow } from '../db/queries/hosted_forms.ts';
import type { ResumedDraftRow } from '../db/queries/form_drafts.ts';
import { checkDraftToken, checkFormContext, formDraftKey, formLinkKey, signDraftToken } from '../lib/links.ts';
import type { FormStructure, Question } from '../pipelines/forms/schema.ts';
import { ApiError, conflict, forbidden, gone, notFound, tooManyRequests } from './errors.ts';
import { pageAssets } from './pages/assets.ts';
import type { PageDraft } from './pages/form_page.ts';
import { contentSecurityPolicy, messagePage, type Brand } from './pages/layout.ts';
import { hostedFormPath } from './pages/urls.ts';
import { presentAgency } from './presenters/agencies.ts';
import type { Deps } from './route.ts';

export const pageParams = z.object({ agentSlug: z.string().max(200), publicId: z.string().max(100), formSlug: z.string().max(300).optional() });
export const formParams = z.object({ agentSlug: z.string().max(200), publicId: z.string().max(100) });
export const pageQuery = z.object({ embed: z.string().optional(), ctx: z.string().max(12_000).optional(), resume: z.string().max(300).optional() });
/** A resume token (lib/links.ts signDraftToken): uuid, form, agent, expiry and MAC, well under this. */
export const resumeToken = z.string().max(300);

/** Consumers act with no tenant identity: only the security-definer functions of the hosted page answer. */
export const anonymous = <T>(db: Database, fn: (c: pg.PoolClient) => Promise<T>) => withIdentity(db, { role: 'system' }, fn);

export const brandOf = (f: HostedFormRow, deps: Deps): Brand => ({
  name: f.agency_name,
  color: f.color_code,
  logoUrl: presentAgency({ id: f.agency_id, name: f.agency_name, color_code: f.color_code, logo_key: f.logo_key }, deps.cfg.publicUrl).logo_url,
});

export type LinkCheck = { ok: true; metadata: Record<string, unknown> } | { ok: false; status: 403; title: string; message: string };

/** A signed link or resume token that was changed or names another form or agent: refused, with what to do next. */
function linkRefused(message: string) {
  return { ok: false, status: 403, code: 'link_refused', title: 'This link is not valid', message } as const;
}

/** The link's signed context, if any: it must be intact, unexpired, and name this form and this agent. */
export function linkContext(deps: Deps, token: string | undefined | null, f: HostedFormRow): LinkCheck {
  if (!token) return { ok: true, metadata: {} };
  const c = checkFormContext(formLinkKey(deps.secretKey), token);
  if (!c.ok) {
    return c.reason === 'expired'
      ? { ok: false, status: 403, title: 'This link has expired', message: 'Ask your agent for a new link to this form.' }
      : linkRefused('The link was changed or is incomplete. Ask your agent for a new link.');
  }
  if (c.context.form_id !== f.form_id || c.context.agent_id !== f.agent_id) {
    return linkRefused('The link does not belong to this agent or form. Ask your agent for a new link.');
  }
  return { ok: true, metadata: c.context.metadata };
}

export function requireLink(deps: Deps, token: string | undefined | null, f: HostedFormRow): Record<string, unknown> {
  const c = linkContext(deps, token, f);
  if (!c.ok) throw forbidden(`${c.title}. ${c.message}`, { code: 'link_refused' });
  return c.metadata;
}

// ---- drafts: a form saved part-way, resumed from a signed link ---------------------------------------------

export type DraftCheck = { ok: true; draftId: string } | { ok: false; status: 403 | 410; code: string; title: string; message: string };

/** A resume token: intact, unexpired, and naming this form and this agent (checked before any row is read). */
export function draftAccess(deps: Deps, token: string, f: HostedFormRow): DraftCheck {
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
      : linkRefused('The link was changed or is incomplete. Copy the whole link, or start again from the link your agent sent.');
  }
  if (c.token.form_id !== f.form_id || c.token.agent_id !== f.agent_id) {
    return linkRefused('The link belongs to another form or agent. Open it exactly as you received it.');
  }
  return { ok: true, draftId: c.token.draft_id };
}

/** The draft a JSON call names by its resume token, or the refusal in the surface's problem shape (pointer /resume). */
export function requireDraft(deps: Deps, token: string, f: HostedFormRow): string {
  const c = draftAccess(deps, token, f);
  if (!c.ok) throw new ApiError(c.status, `${c.title}. ${c.message}`, [{ field: '/resume', message: c.title.toLowerCase() }], {}, c.code);
  return c.draftId;
}

/**
 * The form a write of the hosted page (an upload, a draft save, a submit) names, or 404, and who writes: the draft
 * its resume token names, or else the signed link its context carries, with the link's metadata (checked either
 * way), and the key the write's rate limit counts under (the draft's, or the link's).
 */
export async function formOfWrite(
  deps: Deps,
  params: { agentSlug: string; publicId: string },
  body: { resume?: string | null; ctx?: string | null },
): Promise<{ f: HostedFormRow; draftId: string | null; metadata: Record<string, unknown>; rateKey: string | null | undefined }> {
  const f = await anonymous(deps.db, (c) => hostedForm(c, params.agentSlug, params.publicId));
  if (!f) throw notFound('form');
  const draftId = body.resume ? requireDraft(deps, body.resume, f) : null;
  const metadata = draftId ? {} : requireLink(deps, body.ctx, f);
  return { f, draftId, metadata, rateKey: draftId ? `draft:${draftId}` : body.ctx };
}

/** The state of a draft read from its row, as the refusal a save or submit gets (none while it is open). */
export function draftGone(draft: ResumedDraftRow | undefined, deps: Deps): ApiError | null {
  if (!draft || draft.state === 'expired')
    return gone(`This saved form has expired. Answers saved part-way are kept for ${ttlWords(deps)} after the last change.`, {
      details: [{ field: '/resume', message: 'expired' }],
      code: 'draft_expired',
    });
  if (draft.state === 'submitted')
    return conflict('These answers were already sent; there is nothing more to do.', {
      details: [{ field: '/resume', message: 'already submitted' }],
      code: 'draft_submitted',
    });
  return null;
}

export const ttlWords = (deps: Deps) => {
  const h = deps.cfg.FORM_DRAFT_TTL_HOURS;
  return h % 24 === 0 ? `${h / 24} day${h === 24 ? '' : 's'}` : `${h} hour${h === 1 ? '' : 's'}`;
};

/** The resume link of a draft (expiring with it) and its token. */
export function resumeLink(deps: Deps, agentSlug: string, f: HostedFormRow, draft: { public_id: string; expires_at: Date }) {
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
export function pageDraft(deps: Deps, agentSlug: string, f: HostedFormRow, structure: FormStructure, d: ResumedDraftRow): PageDraft {
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
export function namedUploads(structure: FormStructure, answers: Record<string, unknown>): string[] {
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
  return [...fileQuestions(structure).keys()]
    .flatMap((id) => (Array.isArray(answers[id]) ? (answers[id] as unknown[]) : []).map((x) => String((x as { upload_id?: unknown })?.upload_id ?? '')))
    .filter((id) => uuid.test(id));
}

/** What a draft save may not hold: answers to questions the form does not have, steps it does not have, files not named by upload id. */
export function draftProblems(structure: FormStructure, body: z.infer<typeof draftBody>): { field: string; message: string }[] {
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

export async function rateLimit(
  ctx: Context,
  deps: Deps,
  kind: 'upload' | 'submit' | 'draft',
  f: HostedFormRow,
  token: string | undefined | null,
): Promise<void> {
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
    throw tooManyRequests(`too many ${what} from this link; try again shortly`, { headers: { 'Retry-After': String(retry) } });
  }
}

export async function sendPage(ctx: Context, status: number, body: string, csp: string): Promise<void> {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Content-Security-Policy', csp);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Referrer-Policy', 'strict-origin-when-cross-origin');
  ctx.body = body;
}

export async function messageResponse(
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

export const imgOrigins = (deps: Deps) => [...new Set([new URL(deps.cfg.publicUrl).origin, new URL(deps.cfg.appUrl).origin])];

/** Question ids of file uploads in a structure. */
export const fileQuestions = (s: FormStructure) =>
  new Map(
    s.steps
      .flatMap((st) => st.questions)
      .filter((q) => q.type === 'file_upload')
      .map((q) => [q.id, q as Extract<Question, { type: 'file_upload' }>]),
  );

export const submitBody = z
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

export const uploadBody = z.object({ question_id: z.string().min(1).max(64), ctx: z.string().max(12_000).optional(), resume: resumeToken.optional() });

/**
 * A draft save: the page's answers as its fields hold them (file questions as [{ upload_id }]), the step on screen
 * and the steps walked before it. Without `resume` it starts a draft (from the link's `ctx`), with it saves that one.
 */
export const draftBody = z
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

export function acceptOk(q: Extract<Question, { type: 'file_upload' }>, filename: string, mime: string): boolean {
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
