// Repeated identical log lines are rate-limited with a count: a loop failing the same way on every turn writes a
// few lines per window and then one line saying how many it left out.
import { Writable } from 'node:stream';
import test from 'ava';
import { createLogger, setLogLevel, setLogRepeatLimit, setLogStream } from '../../lib/log.ts';

test.serial('identical lines past the limit are left out and counted; different lines are not', async (t) => {
  let out = '';
  setLogStream(new Writable({ write: (chunk, _enc, cb) => ((out += chunk.toString()), cb()) }));
  setLogLevel('info');
  const previous = setLogRepeatLimit({ lines: 3, windowMs: 200 });
  try {
    const log = createLogger({ component: 'test' });
    for (let i = 0; i < 1000; i++) log.error('send failed', { deliveryId: 1 });
    for (let i = 0; i < 3; i++) log.info('delivery attempt', { deliveryId: 100 + i });
    let lines = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    t.is(lines.filter((l) => l.msg === 'send failed').length, 3, 'the first three only');
    t.is(lines.filter((l) => l.msg === 'delivery attempt').length, 3, 'lines that differ are all written');
    t.true(lines.every((l) => typeof l.time === 'string' && l.level && l.component === 'test'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    lines = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const summary = lines.filter((l) => l.msg === 'send failed' && l.repeated);
    t.is(summary.length, 1);
    t.is(summary[0].repeated, 997);
    t.is(summary[0].deliveryId, 1);
    t.is(summary[0].level, 'error');
    // A new window writes the line again.
    log.error('send failed', { deliveryId: 1 });
    t.is(out.trim().split('\n').length, lines.length + 1);
  } finally {
    setLogRepeatLimit(previous);
    setLogLevel('silent');
  }
});
