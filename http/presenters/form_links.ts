// A signed hosted-form link (POST /v2/forms/{id}/links and the dashboard's "A link for an agent"): the agent
// the submission is attributed to and the partner's metadata travel in the URL under an HMAC (lib/links.ts).
import type { LinkTargetRow } from '../../db/queries/form_links.ts';
import { formLinkKey, signFormContext } from '../../lib/links.ts';
import { hostedFormPath } from '../pages/urls.ts';
import type { Deps } from '../route.ts';

/** The link of a published form for an active agent, valid for `expiresIn` seconds (default FORM_LINK_TTL_SECONDS). */
export function presentFormLink(
  deps: Pick<Deps, 'cfg' | 'secretKey'>,
  form: Pick<LinkTargetRow, 'form_id' | 'public_id'> & { live_name: string },
  agent: { id: number; slug: string },
  metadata: Record<string, unknown>,
  expiresIn?: number,
): { url: string; expires_at: string } {
  const expires = Math.floor(Date.now() / 1000) + (expiresIn ?? deps.cfg.FORM_LINK_TTL_SECONDS);
  const token = signFormContext(formLinkKey(deps.secretKey), { form_id: form.form_id, agent_id: agent.id, metadata, expires });
  return {
    url: `${deps.cfg.appUrl}${hostedFormPath(agent.slug, form.public_id, form.live_name)}?ctx=${token}`,
    expires_at: new Date(expires * 1000).toISOString(),
  };
}
