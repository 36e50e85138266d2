// API key rows → the documented v1 shape; the key itself is shown only by the create and roll responses.
import type { z } from 'zod';
import type { ApiKeyRow } from '../../db/queries/api_keys.ts';
import type { apiKey } from '../schemas/api_keys.ts';

export function presentApiKey(k: ApiKeyRow): z.infer<typeof apiKey> {
  const now = Date.now();
  const status = k.revoked_at ? 'revoked' : k.expires_at && k.expires_at.getTime() <= now ? 'expired' : k.expires_at ? 'expiring' : 'active';
  return {
    id: k.id,
    name: k.name,
    mode: k.mode,
    permissions: k.permissions,
    prefix: k.prefix,
    last_four: k.last_four,
    created_by_agent_id: k.created_by_agent_id,
    status,
    created_at: k.created_at.toISOString(),
    last_used_at: k.last_used_at?.toISOString() ?? null,
    expires_at: k.expires_at?.toISOString() ?? null,
    revoked_at: k.revoked_at?.toISOString() ?? null,
    replaced_by_id: k.replaced_by_id,
  };
}
