// When a failed delivery is tried again. The default keeps trying for about 27.6 hours over 8 attempts,
// like the long-running schedules of the established webhook services, so a receiver down for a day
// still gets every event.
import { z } from 'zod';

/** Nominal waits in seconds before attempts 2..8: 30 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (≈ 27.6 h in all). */
export const DEFAULT_RETRY_SCHEDULE_SECONDS: readonly number[] = [30, 300, 1800, 7200, 18000, 36000, 36000];
export const DEFAULT_MAX_ATTEMPTS = 8;
export const DEFAULT_JITTER = 0.2;
/** An endpoint whose deliveries have failed without any success for this long is disabled. */
export const DISABLE_AFTER_FAILING_SECONDS = 5 * 24 * 3600;

export const BackoffOptions = z
  .object({
    /** Explicit waits before attempts 2, 3, …; the last one repeats when maxAttempts needs more. */
    schedule: z.array(z.number().positive()).min(1).optional(),
    /** Exponential instead of the schedule: baseSeconds × factor^(n-1), capped at maxDelaySeconds. */
    baseSeconds: z.number().positive().optional(),
    factor: z.number().min(1).default(4),
    maxDelaySeconds: z.number().positive().default(36000),
    /** Attempts in all, the first one included. */
    maxAttempts: z.number().int().min(1).default(DEFAULT_MAX_ATTEMPTS),
    /** ± fraction applied to each wait (0.2 = ±20%). */
    jitter: z.number().min(0).max(1).default(DEFAULT_JITTER),
    /** Source of randomness in [0, 1); injected by tests for determinism. */
    random: z.custom<() => number>((v) => typeof v === 'function').optional(),
  })
  .strict();
export type BackoffOptions = z.input<typeof BackoffOptions>;

/** Nominal (unjittered) wait in seconds after failed attempt `attemptNumber` (1-based), or null when no attempt is left. */
export function nominalDelay(attemptNumber: number, options: BackoffOptions = {}): number | null {
  const o = BackoffOptions.parse(options);
  if (!Number.isInteger(attemptNumber) || attemptNumber < 1) throw new Error('attemptNumber is 1-based');
  if (attemptNumber >= o.maxAttempts) return null;
  if (o.baseSeconds !== undefined) {
    return Math.min(o.baseSeconds * o.factor ** (attemptNumber - 1), o.maxDelaySeconds);
  }
  const schedule = o.schedule ?? DEFAULT_RETRY_SCHEDULE_SECONDS;
  return schedule[Math.min(attemptNumber - 1, schedule.length - 1)];
}

/** Seconds to wait after failed attempt `attemptNumber` (1-based) before the next one, jittered; null when exhausted. */
export function nextAttemptDelay(attemptNumber: number, options: BackoffOptions = {}): number | null {
  const nominal = nominalDelay(attemptNumber, options);
  if (nominal === null) return null;
  const jitter = options.jitter ?? DEFAULT_JITTER;
  const r = (options.random ?? Math.random)();
  // r in [0,1) → factor in [1 - jitter, 1 + jitter)
  return Math.max(1, Math.round(nominal * (1 + jitter * (2 * r - 1))));
}

/** The nominal waits of a whole schedule, e.g. for documentation and the delivery log ("next attempt in …"). */
export function retrySchedule(options: BackoffOptions = {}): number[] {
  const waits: number[] = [];
  for (let n = 1; ; n++) {
    const d = nominalDelay(n, options);
    if (d === null) return waits;
    waits.push(d);
  }
}

/** True when an endpoint has been failing since `failingSince` for longer than the disable threshold. */
export function shouldDisableEndpoint(failingSince: Date, now: Date, thresholdSeconds = DISABLE_AFTER_FAILING_SECONDS): boolean {
  return now.getTime() - failingSince.getTime() >= thresholdSeconds * 1000;
}
