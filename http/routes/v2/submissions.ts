// Submissions read API (SPEC §4.1): the form-submission payload again, with links signed on every read.
import { getSubmission } from '../../../db/queries/submissions.ts';
import { notFound } from '../../errors.ts';
import { presentSubmission } from '../../presenters/submissions.ts';
import { route, tx } from '../../route.ts';
import { problemAnswers } from '../../schemas/common.ts';
import { submission, submissionParams } from '../../schemas/submissions.ts';

export const submissionRoutes = [
  route({
    method: 'get',
    path: '/v2/submissions/:submission_id',
    operationId: 'getSubmission',
    summary: 'Read a submission as in the form-submission webhook, with freshly signed file and ACORD links',
    tags: ['Submissions'],
    auth: 'api_key',
    params: submissionParams,
    responses: {
      200: { description: 'The submission', schema: submission },
      ...problemAnswers({
        400: 'A submission_id that is not a positive integer',
        401: 'Invalid or missing API key',
        404: 'No such submission in the key’s agency and mode',
      }),
    },
    handler: async (ctx, { params }, deps) => {
      const s = await getSubmission(tx(ctx), params.submission_id);
      if (!s) throw notFound('submission');
      ctx.set('Cache-Control', 'no-store');
      ctx.body = presentSubmission(s, deps);
    },
  }),
];
