// Lease compliance checker (SPEC §4.3, §2.8): a partner's server uploads a lease and an insurance document and
// gets the analysis. Both files are stored and the work runs as graphile-worker tasks (migration 0008), so
// every server and worker process shares it; the request waits for the result until ANALYZE_DEADLINE_MS and
// then answers 202 with the id (at once with ?async=true). X-API-Key with the plan's rate limits; §7.2 errors.
import type { Context } from 'koa';
import { analysisById, getAnalysis, startAnalysis, type AnalysisRow, type StoredDocument } from '../../../db/queries/analyses.ts';
import { DocumentError } from '../../../pipelines/documents/errors.ts';
import { ApiError, badRequest, documentErrorStatus, notFound } from '../../errors.ts';
import { presentAnalysis, statusUrl } from '../../presenters/analyses.ts';
import { afterCommit } from '../../context.ts';
import { apiRoute, tx, type Deps, type UploadedFile } from '../../route.ts';
import { keepUpload, readUpload, safeFilename, type Upload } from '../../uploads.ts';
import { analysisParams, analysisResult, analysisStatus, analyzeBody, analyzeFields, analyzeQuery } from '../../schemas/analyses.ts';
import { apiErrors } from '../../schemas/extractions.ts';

/** Sniff (type from the bytes, size, single-page images) and store one part; a refused file names its part. */
async function store(deps: Deps, part: 'lease' | 'insurance', file: UploadedFile): Promise<StoredDocument> {
  let upload: Upload;
  try {
    upload = await readUpload(file, { maxBytes: deps.cfg.MAX_UPLOAD_BYTES, maxImagePixels: deps.cfg.MAX_IMAGE_PIXELS });
  } catch (e) {
    if (e instanceof DocumentError)
      throw new ApiError(documentErrorStatus[e.code], `${part}: ${e.message}`, e.details ? [{ field: part, message: e.details }] : [], {}, e.code);
    throw e;
  }
  const kept = await keepUpload(deps.blobs, upload, 'documents');
  return {
    id: kept.id,
    blob_key: kept.blobKey,
    filename: safeFilename(file.originalFilename, part),
    content_type: upload.sniffed.mime,
    size_bytes: file.size,
    sha256: upload.sha256,
  };
}

/**
 * Wait for the new analysis (owner pool: the id was created by this request) until it finishes or the deadline
 * passes: app_private.complete_analysis / fail_analysis notify svc_analysis_done, which wakes the wait at once; the
 * row is also re-read every second, in case a notification was lost with its connection.
 */
async function waitFor(deps: Deps, id: string, deadlineMs: number): Promise<AnalysisRow | undefined> {
  const until = Date.now() + deadlineMs;
  const watch = deps.db.analysisDone.watch(id);
  try {
    for (;;) {
      const row = await analysisById(deps.db.owner, id);
      if (row && (row.status === 'completed' || row.status === 'failed')) return row;
      const left = until - Date.now();
      if (left <= 0) return row;
      await watch.next(Math.min(left, 1000));
    }
  } finally {
    watch.close();
  }
}

/** A failed analysis as its §7.2 error (422 extraction_failed with details, …). */
function failure(row: AnalysisRow): ApiError {
  const code = (row.error_code ?? 'internal_error') as DocumentError['code'];
  return new ApiError(
    documentErrorStatus[code] ?? 500,
    code === 'extraction_failed' ? 'data cannot be extracted from a document' : (row.error_details ?? 'the analysis failed'),
    row.error_details && code === 'extraction_failed' ? [{ message: row.error_details }] : [],
    {},
    code,
  );
}

function accepted(ctx: Context, row: Pick<AnalysisRow, 'id' | 'status' | 'as_of'>) {
  ctx.status = 202;
  ctx.set('Location', statusUrl(row.id));
  ctx.body = { id: row.id, status: row.status, as_of: row.as_of, status_url: statusUrl(row.id) };
}

export const analysisRoutes = [
  apiRoute({
    method: 'post',
    path: '/api/analyze',
    operationId: 'analyzeLease',
    summary: 'Check a lease against an insurance document: the facts of both, 15 coverage checks and recommendations',
    tags: ['Lease compliance checker'],
    query: analyzeQuery,
    body: analyzeFields,
    docBody: analyzeBody,
    bodyStatus: 400,
    files: {
      lease: { description: 'the lease agreement: PDF (text or scanned), JPEG or PNG (one page), at most 10 MB' },
      insurance: { description: 'the insurance policy, declarations, certificate or binder: PDF, JPEG or PNG (one page), at most 10 MB' },
    },
    responses: {
      200: {
        description: 'The §2.8 lease analysis result',
        schema: analysisResult,
        headers: ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'],
      },
      202: {
        description: 'Still running (past the deadline, or ?async=true): GET status_url (also in Location) for the result',
        schema: analysisStatus,
        headers: ['Location'],
      },
      ...apiErrors(400, 401, 413, 422, 500),
    },
    handler: async (ctx, { query, body, files }, deps: Deps) => {
      const missing = (['lease', 'insurance'] as const).filter((p) => !files[p]);
      if (missing.length) {
        const message = `both files are required: the ${missing.join(' and ')} part${missing.length > 1 ? 's are' : ' is'} missing (multipart/form-data parts "lease" and "insurance")`;
        throw badRequest(message, [{ field: missing[0], message }]);
      }
      const asOf = body.as_of ?? new Date().toISOString().slice(0, 10);
      const lease = await store(deps, 'lease', files.lease!);
      let insurance: StoredDocument | undefined;
      let id: string;
      try {
        insurance = await store(deps, 'insurance', files.insurance!);
        id = await startAnalysis(tx(ctx), lease, insurance, asOf);
      } catch (err) {
        await Promise.all([lease, insurance].map((d) => d && deps.blobs.delete(d.blob_key).catch(() => {})));
        throw err;
      }
      if (query.async === 'true' || query.async === '1' || deps.cfg.ANALYZE_DEADLINE_MS === 0) return accepted(ctx, { id, status: 'queued', as_of: asOf });
      // The workers see the analysis once the request's transaction commits: the wait comes after it, holding no connection.
      afterCommit(ctx, async () => {
        const row = await waitFor(deps, id, deps.cfg.ANALYZE_DEADLINE_MS);
        if (!row || (row.status !== 'completed' && row.status !== 'failed')) return accepted(ctx, { id, status: row?.status ?? 'queued', as_of: asOf });
        if (row.status === 'failed') throw failure(row);
        ctx.body = presentAnalysis(row);
      });
    },
  }),
  apiRoute({
    method: 'get',
    path: '/api/analyses/:analysis_id',
    operationId: 'getLeaseAnalysis',
    summary: 'Read an analysis: its status while it runs, the §2.8 result when completed, the §7.2 error when failed',
    tags: ['Lease compliance checker'],
    params: analysisParams,
    responses: {
      200: { description: 'The §2.8 result (completed) or the status (queued, processing, failed)', schema: analysisResult.or(analysisStatus) },
      ...apiErrors(400, 401, 404),
    },
    handler: async (ctx, { params }) => {
      const row = await getAnalysis(tx(ctx), params.analysis_id);
      if (!row) throw notFound(`analysis ${params.analysis_id}`);
      ctx.body = presentAnalysis(row);
    },
  }),
];
