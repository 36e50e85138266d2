// Stage 4 of a lease analysis: the 15 checks on both documents' facts (pipelines/lease buildResult) as of the
// analysis's date; app_private.complete_analysis stores the §2.8 result and wakes the waiting request.
import type { Task } from 'graphile-worker';
import { z } from 'zod';
import { analysisWork, completeAnalysis } from '../db/queries/analyses.ts';
import { buildResult, type InsuranceStageOutput, type LeaseStageOutput } from '../pipelines/lease/index.ts';
import type { TaskDeps } from './context.ts';

const payload = z.object({ analysis_id: z.uuid() });

export function analysesCompare(_deps: TaskDeps): Task {
  return async (raw, helpers) => {
    const { analysis_id } = payload.parse(raw);
    const work = await helpers.withPgClient((c) => analysisWork(c, analysis_id, 'lease'));
    if (!work || work.status !== 'processing' || !work.lease_facts || !work.insurance_facts) return;
    const result = buildResult(work.lease_facts as LeaseStageOutput, work.insurance_facts as InsuranceStageOutput, work.as_of);
    await helpers.withPgClient((c) => completeAnalysis(c, analysis_id, result));
    helpers.logger.info('analysis completed', { analysisId: analysis_id, status: result.summary.status });
  };
}
