import test from 'ava';
import { DEFAULT_RETRY_SCHEDULE_SECONDS, nextAttemptDelay, nominalDelay, retrySchedule, shouldDisableEndpoint } from '../../../pipelines/webhooks/backoff.ts';

test('the default schedule is 8 attempts over about 27.6 hours', (t) => {
  const waits = retrySchedule();
  t.deepEqual(waits, [...DEFAULT_RETRY_SCHEDULE_SECONDS]);
  t.is(waits.length + 1, 8);
  const hours = waits.reduce((a, b) => a + b, 0) / 3600;
  t.true(hours > 27 && hours < 28, String(hours));
  t.is(nominalDelay(1), 30);
  t.is(nominalDelay(7), 36000);
  t.is(nominalDelay(8), null);
  t.is(nextAttemptDelay(8), null);
  t.throws(() => nominalDelay(0));
});

test('jitter stays within ±20% and is deterministic with an injected random', (t) => {
  t.is(nextAttemptDelay(2, { random: () => 0 }), 240);
  t.is(nextAttemptDelay(2, { random: () => 0.5 }), 300);
  t.is(nextAttemptDelay(2, { random: () => 0.999999 }), 360);
  t.is(nextAttemptDelay(2, { random: () => 0.25 }), nextAttemptDelay(2, { random: () => 0.25 }));
  for (let n = 1; n < 8; n++) {
    const d = nextAttemptDelay(n)!;
    const nominal = nominalDelay(n)!;
    t.true(d >= nominal * 0.8 - 1 && d <= nominal * 1.2 + 1);
  }
  t.is(nextAttemptDelay(3, { jitter: 0, random: () => 0.9 }), 1800);
});

test('exponential and custom schedules, and more attempts than listed waits', (t) => {
  t.deepEqual(retrySchedule({ baseSeconds: 10, factor: 3, maxAttempts: 5, maxDelaySeconds: 200 }), [10, 30, 90, 200]);
  t.deepEqual(retrySchedule({ schedule: [1, 2], maxAttempts: 5 }), [1, 2, 2, 2]);
  t.deepEqual(retrySchedule({ maxAttempts: 1 }), []);
  t.throws(() => retrySchedule({ unknown: 1 } as never));
});

test('an endpoint failing for 5 days is due to be disabled', (t) => {
  const since = new Date('2026-11-01T00:00:00Z');
  t.false(shouldDisableEndpoint(since, new Date('2026-11-05T23:59:59Z')));
  t.true(shouldDisableEndpoint(since, new Date('2026-11-06T00:00:00Z')));
});
