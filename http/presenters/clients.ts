// Rows of db/queries/clients.ts → the documented v1 client shapes (http/schemas/clients.ts).
import type { z } from 'zod';
import type { ClientRow, DeclarationPageRow, SubmissionRow, AdditionalQuestionsRow } from '../../db/queries/clients.ts';
import type { additionalQuestionsSettings, client, clientDetail, declarationPage, SalesFunnelStatus } from '../schemas/clients.ts';

export function presentClient(c: ClientRow): z.infer<typeof client> {
  return {
    uuid: c.id,
    agent_id: c.agent_id,
    first_name: c.first_name,
    last_name: c.last_name,
    email: c.email,
    phone: c.phone,
    // Extractions may store an address read as one line of text.
    address: typeof c.address === 'string' ? { formatted: c.address } : c.address,
    sales_funnel_status: c.sales_funnel_status as SalesFunnelStatus,
    mode: c.mode,
    submissions_count: c.submissions_count,
    created_at: c.created_at.toISOString(),
    updated_at: c.updated_at.toISOString(),
  };
}

export function presentDeclarationPage(p: DeclarationPageRow): z.infer<typeof declarationPage> {
  return {
    uuid: p.id,
    filename: p.filename,
    content_type: p.content_type,
    size_bytes: p.size_bytes,
    extraction_status: p.extraction_status,
    policy_type: p.policy_type,
    carrier: p.carrier,
    policy_number: p.policy_number,
    created_at: p.created_at.toISOString(),
  };
}

/** The client with its submissions (oldest first) and each submission's declaration pages. */
export function presentClientDetail(c: ClientRow, submissions: SubmissionRow[], pages: DeclarationPageRow[]): z.infer<typeof clientDetail> {
  return {
    ...presentClient(c),
    submissions: submissions.map((s) => ({
      uuid: s.id,
      created_at: s.created_at.toISOString(),
      declaration_pages: pages.filter((p) => p.submission_id === s.id).map(presentDeclarationPage),
    })),
  };
}

export function presentAdditionalQuestions(agentId: number, s: AdditionalQuestionsRow | undefined): z.infer<typeof additionalQuestionsSettings> {
  return {
    agent_id: agentId,
    enabled: s?.enabled ?? false,
    questions: (s?.questions ?? []) as z.infer<typeof additionalQuestionsSettings>['questions'],
    updated_at: s ? s.updated_at.toISOString() : null,
  };
}
