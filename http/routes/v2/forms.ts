// Forms API (SPEC §4.1): API-key callers create, list, read, replace, publish and duplicate forms of their
// agency in their key's mode. RLS keeps test and live data apart; every write is idempotent by key.
import { isDeepStrictEqual } from 'node:util';
import type { Context } from 'koa';
import { createForm, duplicateForm, getForm, listForms, publishForm, updateFormStructure, type FormRow } from '../../../db/queries/forms.ts';
import { template } from '../../../pipelines/forms/templates.ts';
import { validateForPublish, validateStructure, type Problem } from '../../../pipelines/forms/validate.ts';
import { forbidden, notFound, unprocessable } from '../../errors.ts';
import { decodeCursor, keysetPage } from '../../pagination.ts';
import { presentForm, presentFormSummary } from '../../presenters/forms.ts';
import { identity, route, tx } from '../../route.ts';
import { errorAnswers, problem } from '../../schemas/common.ts';
import { createFormBody, form, formList, formParams, listFormsQuery, READ_ONLY_FORM_KEYS, updateFormBody, updateFormDoc } from '../../schemas/forms.ts';

const problems = (message: string, list: Problem[]) =>
  unprocessable(
    message,
    list.map((p) => ({ field: p.path || '/', message: p.message })),
  );

const errors = errorAnswers(problem, (s) => problemDescriptions[s]);
const problemDescriptions: Record<number, string> = {
  400: 'Missing or malformed Idempotency-Key, or bad parameters',
  401: 'Invalid or missing API key',
  403: 'A write with a read-only key, or a form created for another agency',
  404: 'A form outside the caller’s visibility',
  409: 'A request with the same Idempotency-Key is still running',
  422: 'Validation errors, each with its JSON pointer; or an Idempotency-Key reused with a different request',
};

async function loadForm(ctx: Context, id: number, lock = false): Promise<FormRow> {
  const f = await getForm(tx(ctx), id, lock);
  if (!f) throw notFound('form');
  return f;
}

/** The form the path names, loaded (and locked) before the body is validated, so another agency's form is 404 whatever the body. */
async function authorizeForm(ctx: Context, { params }: { params: { id: number } }): Promise<void> {
  ctx.state.form = await loadForm(ctx, params.id, true);
}

/** A new form's owner must be the key's own agency: naming another one is a write outside the caller's permissions (403), whatever the rest of the body. */
async function authorizeOwner(ctx: Context, { body }: { body: unknown }): Promise<void> {
  const agencyId = (body as { owner?: { agency_id?: unknown } } | undefined)?.owner?.agency_id;
  if (typeof agencyId === 'number' && Number.isInteger(agencyId) && agencyId !== identity(ctx).agencyId)
    throw forbidden('a form can only be created for the API key’s own agency');
}

const sameInstant = (a: unknown, b: unknown) => typeof a === 'string' && typeof b === 'string' && Date.parse(a) === Date.parse(b);

/** The read-only keys a GET → PATCH round trip sends back: each must equal the stored value (else 422 naming it). */
function checkReadOnlyKeys(body: Record<string, unknown>, stored: ReturnType<typeof presentForm>): void {
  const differing = READ_ONLY_FORM_KEYS.filter((k) => {
    if (!(k in body) || body[k] === undefined) return false;
    const sent = body[k];
    const have = stored[k];
    if (k === 'created_at' || k === 'updated_at' || k === 'published_at') return !(sent === have || sameInstant(sent, have));
    return !isDeepStrictEqual(sent, have);
  });
  if (differing.length)
    throw unprocessable(
      'read-only fields differ from the stored form',
      differing.map((k) => ({ field: k, message: `${k} is read only: send the stored value or leave it out` })),
    );
}

export const formRoutes = [
  route({
    method: 'post',
    path: '/v2/forms',
    operationId: 'createForm',
    summary: 'Create a draft form, empty or from a template',
    tags: ['Forms'],
    auth: 'api_key_admin',
    idempotent: true,
    authorize: authorizeOwner,
    body: createFormBody,
    responses: { 201: { description: 'The new draft form', schema: form }, ...errors(400, 401, 403, 409, 422) },
    handler: async (ctx, { body }) => {
      // app_public.create_form checks the owner (the key's agency, an active agent of it) and names the bad field.
      const created = await createForm(tx(ctx), {
        ownerAgencyId: body.owner.agency_id,
        ownerAgentId: body.owner.type === 'agent' ? body.owner.agent_id : null,
        name: body.name,
        insuranceLine: body.insurance_line,
        templateId: body.template_id ?? null,
        structure: body.template_id ? template(body.template_id).structure : { steps: [] },
      });
      ctx.status = 201;
      ctx.body = presentForm(created);
    },
  }),
  route({
    method: 'get',
    path: '/v2/forms',
    operationId: 'listForms',
    summary: 'List forms, newest first, a page at a time',
    tags: ['Forms'],
    auth: 'api_key',
    query: listFormsQuery,
    responses: { 200: { description: 'A page of forms and the cursor of the next one', schema: formList }, ...errors(400, 401) },
    handler: async (ctx, { query }) => {
      const rows = await listForms(tx(ctx), {
        before: query.cursor ? decodeCursor(query.cursor) : null,
        status: query.status ?? null,
        insuranceLine: query.insurance_line ?? null,
        limit: query.limit + 1,
      });
      const { page, nextCursor } = keysetPage(rows, query.limit);
      ctx.body = { data: page.map(presentFormSummary), next_cursor: nextCursor };
    },
  }),
  route({
    method: 'get',
    path: '/v2/forms/:id',
    operationId: 'getForm',
    summary: 'Read a form with its working structure, in the shape PATCH accepts',
    tags: ['Forms'],
    auth: 'api_key',
    params: formParams,
    responses: { 200: { description: 'The form', schema: form }, ...errors(400, 401, 404) },
    handler: async (ctx, { params }) => {
      ctx.body = presentForm(await loadForm(ctx, params.id));
    },
  }),
  route({
    method: 'patch',
    path: '/v2/forms/:id',
    operationId: 'updateForm',
    summary: 'Replace the whole working structure (and optionally name or insurance_line)',
    tags: ['Forms'],
    auth: 'api_key_admin',
    idempotent: true,
    params: formParams,
    authorize: authorizeForm,
    body: updateFormBody,
    docBody: updateFormDoc,
    responses: { 200: { description: 'The updated form', schema: form }, ...errors(400, 401, 403, 404, 409, 422) },
    handler: async (ctx, { params, body }) => {
      checkReadOnlyKeys(body, presentForm(ctx.state.form as FormRow));
      const checked = validateStructure({ steps: body.steps });
      if (!checked.ok) throw problems('the form structure is invalid', checked.problems);
      ctx.body = presentForm(await updateFormStructure(tx(ctx), params.id, checked.structure, body.name ?? null, body.insurance_line ?? null));
    },
  }),
  route({
    method: 'post',
    path: '/v2/forms/:id/publish',
    operationId: 'publishForm',
    summary: 'Publish the working structure live (draft → active; an active form is replaced in place)',
    tags: ['Forms'],
    auth: 'api_key_admin',
    idempotent: true,
    params: formParams,
    responses: { 200: { description: 'The form, active', schema: form }, ...errors(400, 401, 403, 404, 409, 422) },
    handler: async (ctx, { params }) => {
      const current = await loadForm(ctx, params.id, true);
      const refused = validateForPublish(current.structure);
      if (refused.length) throw problems('the form cannot be published as it is', refused);
      ctx.body = presentForm(await publishForm(tx(ctx), params.id));
    },
  }),
  route({
    method: 'post',
    path: '/v2/forms/:id/duplicate',
    operationId: 'duplicateForm',
    summary: 'Copy a form into a new draft (new id and public_id, same owner and structure)',
    tags: ['Forms'],
    auth: 'api_key_admin',
    idempotent: true,
    params: formParams,
    responses: { 201: { description: 'The new draft', schema: form }, ...errors(400, 401, 403, 404, 409) },
    handler: async (ctx, { params }) => {
      const copy = await duplicateForm(tx(ctx), params.id);
      ctx.status = 201;
      ctx.body = presentForm(copy);
    },
  }),
];
