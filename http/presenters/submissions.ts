// A stored submission → the §6.3 shape, every file and archive link signed afresh on each read.
import { fileLinkKey, signFileLink } from '../../lib/links.ts';
import { submissionData } from '../../pipelines/forms/submission.ts';
import type { SubmissionRow } from '../../db/queries/submissions.ts';
import type { Deps } from '../route.ts';

export function presentSubmission(s: SubmissionRow, deps: Pick<Deps, 'cfg' | 'secretKey'>) {
  const key = fileLinkKey(deps.secretKey);
  const sign = (blobKey: string, filename: string) =>
    signFileLink({ baseUrl: deps.cfg.filesUrl, key, blobKey, filename, ttlSeconds: deps.cfg.FILE_LINK_TTL_SECONDS }).url;
  const data = submissionData(s, sign);
  const pendingAcord =
    s.acord_form_ids.length && !s.acord_archive_key ? { acord: { is_acord_ready: false, form_ids: s.acord_form_ids, archive_url: null } } : {};
  return {
    ...data,
    ...pendingAcord,
    ...(s.acord_form_ids.length ? { acord_report: { missing_fields: s.acord_missing } } : {}),
  };
}
