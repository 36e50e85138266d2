// A new submission's completion: generate the ACORD forms its answers fill (pure pipeline), store the zip,
// then app_private.complete_submission records it and emits the form-submission event with the payload
// built here (file and archive links signed now), all in one transaction.
import type { Task } from 'graphile-worker';
import { z } from 'zod';
import { fileLinkKey, signFileLink } from '../lib/links.ts';
import { buildAcordPacket } from '../pipelines/acord/index.ts';
import { submissionData, type StoredAnswer } from '../pipelines/forms/submission.ts';
import { completeSubmission, getSubmission } from '../db/queries/submissions.ts';
import { taskBlobs, type TaskDeps } from './context.ts';

const payload = z.object({ submission_id: z.number().int().positive() });

/** Checked answers by question id, as the ACORD mapper reads them. */
const byQuestion = (answers: StoredAnswer[]) => Object.fromEntries(answers.map((a) => [a.question_id, a.value]));

export function submissionsFinalize(deps: TaskDeps): Task {
  const key = fileLinkKey(deps.secretKey);
  return async (raw, helpers) => {
    const { submission_id } = payload.parse(raw);
    const s = await helpers.withPgClient((c) => getSubmission(c, submission_id));
    if (!s || s.status !== 'processing') return; // gone with its agency, or already complete
    let archiveKey: string | null = null;
    let missing: unknown[] = [];
    if (s.acord_form_ids.length) {
      // A rendering bug must not hold the webhook back for ever: the submission goes out without its ACORD
      // archive (GET shows is_acord_ready: false). Storing the archive can fail transiently: that retries.
      const packet = await buildAcordPacket(s.structure, byQuestion(s.answers as StoredAnswer[]), {
        reference: `Submission ${s.id}`,
        createdAt: s.submitted_at.toISOString(),
        agencyName: s.agency_name,
      }).catch((err: unknown) => {
        helpers.logger.error('ACORD rendering failed; sending the submission without its archive', { submissionId: s.id, error: String(err) });
        return null;
      });
      if (packet?.archive) archiveKey = await taskBlobs(deps).put('acord', packet.archive, 'zip');
      missing = packet?.missing ?? [];
    }
    const sign = (blobKey: string, filename: string) =>
      signFileLink({ baseUrl: deps.cfg.filesUrl, key, blobKey, filename, ttlSeconds: deps.cfg.FILE_LINK_TTL_SECONDS }).url;
    const data = submissionData({ ...s, acord_archive_key: archiveKey }, sign);
    const done = await helpers.withPgClient((c) => completeSubmission(c, s.id, archiveKey, missing, data));
    helpers.logger.debug('submission complete', { submissionId: s.id, eventId: done?.event_id, acord: s.acord_form_ids });
  };
}
