import { readFileSync } from 'node:fs';
import test from 'ava';
import { ConfigError, configSchema, parseConfig } from '../../lib/config.ts';

test('every variable is documented in .env.example', (t) => {
  const example = readFileSync(new URL('../../.env.example', import.meta.url), 'utf8');
  for (const key of Object.keys(configSchema.shape)) t.regex(example, new RegExp(`^#? ?${key}=`, 'm'), key);
});

test('defaults need no environment at all', (t) => {
  const c = parseConfig({});
  t.is(c.PORT, 3000);
  t.is(c.publicUrl, 'http://localhost:3000');
  t.is(c.DATABASE_URL, undefined);
  t.deepEqual(c.WEBHOOK_ALLOW_HOSTS, []);
});

test('every bad variable is reported at once', (t) => {
  const err = t.throws(() => parseConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', WEBHOOK_RETRY_SCHEDULE: '30,soon', LOG_LEVEL: 'loud' }), {
    instanceOf: ConfigError,
  });
  for (const k of ['PORT', 'DATABASE_URL', 'WEBHOOK_RETRY_SCHEDULE', 'LOG_LEVEL']) t.regex(err!.message, new RegExp(k));
});

test('lists and empty values parse as documented', (t) => {
  const c = parseConfig({
    WEBHOOK_ALLOW_HOSTS: '127.0.0.1, 10.1.0.0/16 ,',
    WEBHOOK_RETRY_SCHEDULE: '1,2',
    PUBLIC_URL: 'https://api.example.com/',
    LLM_MODEL: '',
  });
  t.deepEqual(c.WEBHOOK_ALLOW_HOSTS, ['127.0.0.1', '10.1.0.0/16']);
  t.deepEqual(c.WEBHOOK_RETRY_SCHEDULE, [1, 2]);
  t.is(c.publicUrl, 'https://api.example.com');
  t.is(c.LLM_MODEL, undefined);
});
