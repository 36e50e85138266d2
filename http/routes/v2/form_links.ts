// Signed hosted-form links (POST /v2/forms/{id}/links): the agent the submission is attributed to and the
// partner's correlation metadata travel in the URL under an HMAC, so the consumer cannot change them; the
// webhook echoes the metadata in data.metadata.
import { activeAgent, linkTarget } from '../../../db/queries/form_links.ts';
import { notFound, unprocessable } from '../../errors.ts';
import { presentFormLink } from '../../presenters/form_links.ts';
import { route, tx } from '../../route.ts';
import { problemAnswers } from '../../schemas/common.ts';
import { formParams } from '../../schemas/forms.ts';
import { formLink, formLinkBody } from '../../schemas/submissions.ts';
import { formInPath } from '../../visibility.ts';

export const formLinkRoutes = [
  route({
    method: 'post',
    path: '/v2/forms/:id/links',
    operationId: 'createFormLink',
    summary: 'Make a signed, expiring hosted-form link for an agent, carrying correlation metadata',
    tags: ['Hosted forms'],
    auth: 'api_key_admin',
    idempotent: true,
    params: formParams,
    authorize: formInPath,
    body: formLinkBody,
    responses: {
      201: { description: 'The link', schema: formLink },
      ...problemAnswers({
        400: 'Missing Idempotency-Key or bad parameters',
        401: 'Invalid or missing API key',
        403: 'A read-only key',
        404: 'A form outside the caller’s visibility',
        422: 'The form is not published, or the agent is not an active agent who may share it',
      }),
    },
    handler: async (ctx, { params, body }, deps) => {
      const form = await linkTarget(tx(ctx), params.id);
      if (!form) throw notFound('form');
      if (form.status !== 'active' || !form.live_name)
        throw unprocessable('publish the form before making links to it', [{ field: '/id', message: 'form is a draft' }]);
      const agent = await activeAgent(tx(ctx), body.agent_id);
      if (!agent) throw unprocessable('agent_id is not an active agent of the agency', [{ field: '/agent_id', message: 'unknown or deactivated agent' }]);
      if (form.owner_agent_id !== null && form.owner_agent_id !== agent.id) {
        throw unprocessable('this form belongs to another agent', [{ field: '/agent_id', message: 'is not the owner of this agent-owned form' }]);
      }
      ctx.status = 201;
      ctx.body = presentFormLink(deps, { ...form, live_name: form.live_name }, agent, body.metadata, body.expires_in);
    },
  }),
];
