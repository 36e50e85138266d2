// Forms API (SPEC §4.1): API-key callers create, list, read, replace, publish and duplicate forms of their
// agency in their key's mode. RLS keeps test and live data apart; every write is idempotent by key.
import type { Context } from 'koa';
import { template } from '../../../pipelines/forms/templates.ts';
import { validateForPublish, validateStructure, type Problem } from '../../../pipelines/forms/validate.ts';
import { decodeCursor, encodeCursor } from '../../cursor.ts';
import { ApiError, notFound } from '../../errors.ts';
import { presentForm, presentFormSummary, type FormRow } from '../../presenters/forms.ts';
import { identity, route, tx } from '../../route.ts';
import { createFormBody, form, formList, formParams, listFormsQuery, patchFormBody, patchFormDoc, problem } from '../../schemas/forms.ts';

const problems = (status: number, message: string, list: Problem[]) =>
  new ApiError(status, message, list.map((p) => ({ field: p.path || '/', message: p.message })));

const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [s, { description: problemDescriptions[s], schema: problem }])) as Record<number, { description: string; schema: typeof problem }>;
const problemDescriptions: Record<number, string> = {
  400: 'Missing or malformed Idempotency-Key, or bad parameters',
  401: 'Invalid or missing API key',
  403: 'A write with a read-only key',
  404: 'A form outside the caller’s visibility',
  409: 'A request with the same Idempotency-Key is still running',
  422: 'Validation errors, each with its JSON pointer; or an Idempotency-Key reused with a different request',
};

async function loadForm(ctx: Context, id: number, lock = false): Promise<FormRow> {
  const { rows } = await tx(ctx).query<FormRow>(`select * from app_public.forms where id = $1${lock ? ' for update' : ''}`, [id]);
  if (!rows[0]) throw notFound('form');
  return rows[0];
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
    body: createFormBody,
    responses: { 201: { description: 'The new draft form', schema: form }, ...errors(400, 401, 403, 409, 422) },
    handler: async (ctx, { body }) => {
      const who = identity(ctx);
      if (body.owner.agency_id !== who.agencyId) {
        throw new ApiError(422, 'owner.agency_id must be the agency of the API key', [{ field: '/owner/agency_id', message: 'is not your agency' }]);
      }
      if (body.owner.type === 'agent') {
        const agent = await tx(ctx).query(`select 1 from app_public.agents where id = $1 and agency_id = $2 and status = 'active'`, [body.owner.agent_id, who.agencyId]);
        if (!agent.rowCount) throw new ApiError(422, 'owner.agent_id is not an active agent of the agency', [{ field: '/owner/agent_id', message: 'unknown or deactivated agent' }]);
      }
      const structure = body.template_id ? template(body.template_id).structure : { steps: [] };
      const { rows } = await tx(ctx).query<FormRow>(
        `insert into app_public.forms (agency_id, mode, owner_agent_id, name, insurance_line, template_id, structure)
         values ($1, $2, $3, $4, $5, $6, $7) returning *`,
        [who.agencyId, who.mode, body.owner.type === 'agent' ? body.owner.agent_id : null, body.name, body.insurance_line, body.template_id ?? null, JSON.stringify(structure)],
      );
      ctx.status = 201;
      ctx.body = presentForm(rows[0]);
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
      const before = query.cursor ? decodeCursor(query.cursor) : null;
      const { rows } = await tx(ctx).query<FormRow>(
        `select * from app_public.forms
          where ($1::bigint is null or id < $1) and ($2::text is null or status = $2) and ($3::text is null or insurance_line = $3)
          order by id desc limit $4`,
        [before, query.status ?? null, query.insurance_line ?? null, query.limit + 1],
      );
      const page = rows.slice(0, query.limit);
      ctx.body = { data: page.map(presentFormSummary), next_cursor: rows.length > query.limit ? encodeCursor(page[page.length - 1].id) : null };
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
    body: patchFormBody,
    docBody: patchFormDoc,
    responses: { 200: { description: 'The updated form', schema: form }, ...errors(400, 401, 403, 404, 409, 422) },
    handler: async (ctx, { params, body }) => {
      await loadForm(ctx, params.id, true);
      const checked = validateStructure({ steps: body.steps });
      if (!checked.ok) throw problems(422, 'the form structure is invalid', checked.problems);
      const { rows } = await tx(ctx).query<FormRow>(
        `update app_public.forms set structure = $2, name = coalesce($3, name), insurance_line = coalesce($4, insurance_line)
          where id = $1 returning *`,
        [params.id, JSON.stringify(checked.structure), body.name ?? null, body.insurance_line ?? null],
      );
      ctx.body = presentForm(rows[0]);
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
      if (refused.length) throw problems(422, 'the form cannot be published as it is', refused);
      const { rows } = await tx(ctx).query<FormRow>('select * from app_public.publish_form($1)', [params.id]);
      ctx.body = presentForm(rows[0]);
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
      const f = await loadForm(ctx, params.id);
      const { rows } = await tx(ctx).query<FormRow>(
        `insert into app_public.forms (agency_id, mode, owner_agent_id, name, insurance_line, template_id, structure)
         values ($1, $2, $3, $4, $5, $6, $7) returning *`,
        [f.agency_id, identity(ctx).mode, f.owner_agent_id, `${f.name} (copy)`.slice(0, 200), f.insurance_line, f.template_id, JSON.stringify(f.structure)],
      );
      ctx.status = 201;
      ctx.body = presentForm(rows[0]);
    },
  }),
];
