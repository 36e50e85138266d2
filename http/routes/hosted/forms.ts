// The hosted form (SPEC §4.5, §6.5): the page a consumer fills at {app_url}/{agentSlug}/form/{publicId}/{formSlug},
// its uploads, and its submission. Consumers are anonymous: the agent slug, the public id and (for links
// made by POST /v2/forms/{id}/links) a signed context decide the agency, agent and metadata; the server
// re-runs the form's rules on the snapshot the page was rendered from and never trusts the browser's view.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { createSubmission, submissionOfClientKey, formSnapshot, hostedForm, pendingUploads, recordUpload } from '../../../db/queries/hosted_forms.ts';
import { createFormDraft, formDraft, saveFormDraft, submitFormDraft } from '../../../db/queries/form_drafts.ts';
import { mapToAcord } from '../../../pipelines/acord/map.ts';
import { validateSubmission } from '../../../pipelines/forms/engine.ts';
import { contactOf, storedAnswers, type StoredFile } from '../../../pipelines/forms/submission.ts';
import { ApiError, payloadTooLarge, unprocessable, unsupportedMediaType } from '../../errors.ts';
import { pageAssets } from '../../pages/assets.ts';
import { formBody, type FormPageData, type PageDraft } from '../../pages/form_page.ts';
import { html } from '../../pages/html.ts';
import { contentSecurityPolicy, layout } from '../../pages/layout.ts';
import { formSlug, hostedFormPath } from '../../pages/urls.ts';
import { route } from '../../route.ts';
import { downloadName, keepUpload, readUpload, type Upload } from '../../uploads.ts';
import {
  pageParams,
  formParams,
  pageQuery,
  anonymous,
  brandOf,
  linkContext,
  formOfWrite,
  draftAccess,
  draftGone,
  ttlWords,
  resumeLink,
  pageDraft,
  namedUploads,
  draftProblems,
  rateLimit,
  sendPage,
  messageResponse,
  imgOrigins,
  fileQuestions,
  submitBody,
  uploadBody,
  draftBody,
  acceptOk,
} from '../../hosted.ts';

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
      // A resumed page has the draft's token instead of the link's context.
      const { f, rateKey } = await formOfWrite(deps, params, body);
      await rateLimit(ctx, deps, 'upload', f, rateKey);
      const q = fileQuestions(f.structure).get(body.question_id);
      if (!q) throw unprocessable('question_id is not a file question of this form', [{ field: '/question_id', message: 'not a file_upload question' }]);
      const file = files.file!;
      const max = Math.min(q.settings?.max_file_bytes ?? deps.cfg.MAX_UPLOAD_BYTES, deps.cfg.MAX_UPLOAD_BYTES);
      if (file.size > max)
        throw payloadTooLarge(`the file is larger than ${Math.round(max / 1024 / 1024)} MB`, {
          details: [{ field: '/file', message: `at most ${max} bytes` }],
          code: 'payload_too_large',
        });
      let upload: Upload;
      try {
        upload = await readUpload(file, { maxBytes: max, maxImagePixels: deps.cfg.MAX_IMAGE_PIXELS });
      } catch (err) {
        throw unsupportedMediaType(`this file can’t be used: ${(err as Error).message}`, {
          details: [{ field: '/file', message: 'send a PDF, JPG or PNG' }],
          code: 'unsupported_media_type',
        });
      }
      const { sniffed, bytes } = upload;
      const filename = downloadName(file.originalFilename, sniffed.kind);
      if (!acceptOk(q, filename, sniffed.mime)) {
        throw unsupportedMediaType(`this question accepts ${q.settings?.accept?.join(', ')}`, {
          details: [{ field: '/file', message: 'type not accepted' }],
          code: 'unsupported_media_type',
        });
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
      const { f, draftId, metadata, rateKey } = await formOfWrite(deps, params, body);
      const max = deps.cfg.FORM_DRAFT_MAX_BYTES;
      const size = Buffer.byteLength(JSON.stringify(body.answers));
      if (size > max)
        throw payloadTooLarge(`the answers are too large to save (${Math.ceil(size / 1024)} KB; at most ${Math.floor(max / 1024)} KB)`, {
          details: [{ field: '/answers', message: `at most ${max} bytes of JSON` }],
          code: 'payload_too_large',
        });
      await rateLimit(ctx, deps, 'draft', f, rateKey);
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
          throw unprocessable('this page is out of date; reload it to see the current form', [
            { field: '/snapshot_id', message: existing ? 'not the version of the form this draft was saved on' : 'not a published version of this form' },
          ]);
        const problems = draftProblems(snap.structure, body);
        if (problems.length) throw unprocessable('the saved answers do not fit this form', problems);
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
      const { f, draftId, metadata: linkMetadata, rateKey } = await formOfWrite(deps, params, body);
      await rateLimit(ctx, deps, 'submit', f, rateKey);
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
          throw unprocessable('this page is out of date; reload it to see the current form', [
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
        if (errors.length) throw unprocessable('some answers need attention', errors);
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
