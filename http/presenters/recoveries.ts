// Recovery rows → the documented body (both webhook surfaces).
import type { z } from 'zod';
import type { RecoveryRow } from '../../db/queries/recoveries.ts';
import type { recovery } from '../schemas/recoveries.ts';

export function presentRecovery(r: RecoveryRow): z.infer<typeof recovery> {
  return {
    id: r.id,
    status: r.status,
    mode: r.mode,
    since: r.since.toISOString(),
    until: r.until ? r.until.toISOString() : null,
    cutoff: r.cutoff.toISOString(),
    total: r.total,
    queued: r.queued,
    delivered: r.delivered,
    failed: r.failed,
    pending: Math.max(0, r.queued - r.delivered - r.failed),
    created_at: r.created_at.toISOString(),
    completed_at: r.completed_at ? r.completed_at.toISOString() : null,
  };
}
