import { z } from 'zod';

export const issueTokenBody = z
  .object({
    grant_type: z.string().optional().describe('Must be client_credentials'),
    client_id: z.string().max(200).optional().describe('Client id, unless sent by HTTP Basic'),
    client_secret: z.string().max(500).optional().describe('Client secret, unless sent by HTTP Basic'),
    scope: z.string().max(500).optional().describe('Ignored; tokens carry the client’s full rights'),
  })
  .meta({ id: 'TokenRequest' });

export const issueTokenResponse = z
  .object({
    access_token: z.string(),
    token_type: z.literal('bearer'),
    expires_in: z.number().int().describe('Seconds until the token expires'),
  })
  .meta({ id: 'TokenResponse' });

export const oauthError = z
  .object({
    error: z.enum(['invalid_request', 'invalid_client', 'unsupported_grant_type', 'rate_limited', 'server_error']),
    error_description: z.string(),
  })
  .meta({ id: 'OAuthError' });
