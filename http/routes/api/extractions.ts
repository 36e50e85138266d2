// Policy extraction (SPEC §4.4, §2.9): a partner's server uploads a policy document for one of its agents
// and gets the record at once (queued); the worker chain of migration 0006 does the rest. X-API-Key with the
// plan's rate limits; errors in the §7.2 body.
import { findAgent, getExtraction, listExtractions, startExtraction } from '../../../db/queries/extractions.ts';
import { decodeTimeCursor, keysetPage, timeCursorOf } from '../../pagination.ts';
import { badRequest, notFound } from '../../errors.ts';
import { presentExtraction } from '../../presenters/extractions.ts';
import { apiRoute, tx, type Deps } from '../../route.ts';
import { keepUpload, readUpload, safeFilename } from '../../uploads.ts';
import {
  agentPathParams,
  apiErrors,
  extractBody,
  extractFields,
  extractionList,
  extractionParams,
  extractionRecord,
  listExtractionsQuery,
} from '../../schemas/extractions.ts';
import type { Context } from 'koa';

/** The agent must be in the key's agency (else 404, never confirming other tenants' ids) and active. */
async function requireAgent(ctx: Context, agentId: number) {
  const a = await findAgent(tx(ctx), agentId);
  if (!a) throw notFound(`agent ${agentId}`);
  return a;
}

export const extractionRoutes = [
  apiRoute({
    method: 'post',
    path: '/api/v1/:agent_id/policy/extract',
    operationId: 'extractPolicy',
    summary: 'Upload a policy document for an agent; the record comes back queued and is completed asynchronously',
    tags: ['Policy extraction'],
    params: agentPathParams,
    body: extractFields,
    docBody: extractBody,
    bodyStatus: 400,
    files: { file: { description: 'the policy document: PDF (text or scanned), JPEG or PNG (one page), at most 10 MB' } },
    responses: {
      200: {
        description: 'The §2.9 record with parsing_status "queued"',
        schema: extractionRecord,
        headers: ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'],
      },
      ...apiErrors(400, 401, 404, 413, 500),
    },
    handler: async (ctx, { params, body, files }, deps: Deps) => {
      const file = files.file;
      if (!file) {
        const message = 'a file part named "file" is required (multipart/form-data)';
        throw badRequest(message, [{ field: 'file', message }]);
      }
      await requireAgent(ctx, params.agent_id);
      // The size was capped while the body arrived (413 before this point); the type comes from the bytes.
      const upload = await readUpload(file, { maxBytes: deps.cfg.MAX_UPLOAD_BYTES, maxImagePixels: deps.cfg.MAX_IMAGE_PIXELS });
      const kept = await keepUpload(deps.blobs, upload, 'documents');
      let extractionId: string;
      try {
        extractionId = await startExtraction(tx(ctx), {
          agentId: params.agent_id,
          documentId: kept.id,
          blobKey: kept.blobKey,
          filename: safeFilename(file.originalFilename, 'document'),
          contentType: upload.sniffed.mime,
          sizeBytes: file.size,
          sha256: upload.sha256,
          entityType: body.entity_type ?? 'declaration_page',
          clientId: body.client_uuid?.toLowerCase() ?? null,
        });
      } catch (err) {
        await deps.blobs.delete(kept.blobKey).catch(() => {});
        throw err;
      }
      const row = await getExtraction(tx(ctx), params.agent_id, extractionId);
      ctx.body = presentExtraction(row!);
    },
  }),
  apiRoute({
    method: 'get',
    path: '/api/v1/:agent_id/policy/extractions/:extraction_id',
    operationId: 'getPolicyExtraction',
    summary: 'Read an extraction record: its status and, when completed, extracted_data',
    tags: ['Policy extraction'],
    params: extractionParams,
    responses: { 200: { description: 'The §2.9 record', schema: extractionRecord }, ...apiErrors(400, 401, 404) },
    handler: async (ctx, { params }) => {
      await requireAgent(ctx, params.agent_id);
      const row = await getExtraction(tx(ctx), params.agent_id, params.extraction_id);
      if (!row) throw notFound(`extraction ${params.extraction_id}`);
      ctx.body = presentExtraction(row);
    },
  }),
  apiRoute({
    method: 'get',
    path: '/api/v1/:agent_id/policy/extractions',
    operationId: 'listPolicyExtractions',
    summary: 'List an agent’s extraction records, newest first (cursor-paginated, optional status filter)',
    tags: ['Policy extraction'],
    params: agentPathParams,
    query: listExtractionsQuery,
    responses: { 200: { description: 'A page of records', schema: extractionList }, ...apiErrors(400, 401, 404) },
    handler: async (ctx, { params, query }) => {
      await requireAgent(ctx, params.agent_id);
      const after = query.cursor ? decodeTimeCursor(query.cursor) : undefined;
      const rows = await listExtractions(tx(ctx), params.agent_id, { status: query.status, after, limit: query.limit + 1 });
      const { page, nextCursor } = keysetPage(rows, query.limit, timeCursorOf);
      ctx.body = { data: page.map(presentExtraction), next_cursor: nextCursor };
    },
  }),
];
