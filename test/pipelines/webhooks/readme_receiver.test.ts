// The receiver in the top-level README.md is run as written, so the copy-paste example keeps working.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { deliver } from '../../../pipelines/webhooks/deliver.ts';
import { contentHash, envelopeBody, sampleTopicPayload, sampleV1Event } from '../../../pipelines/webhooks/payloads.ts';
import { newSigningSecret } from '../../../pipelines/webhooks/sign.ts';
import { closedPort } from './receiver.ts';

const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');

test('the README receiver accepts signed deliveries, refuses bad ones with 401 and de-duplicates', async (t) => {
  const code = /<!-- receiver:start -->\s*```js\n([\s\S]*?)```\s*<!-- receiver:end -->/.exec(readme)?.[1];
  t.truthy(code);
  const dir = mkdtempSync(join(tmpdir(), 'receiver-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'receiver.mjs'), code!);

  const secret = newSigningSecret();
  const port = await closedPort();
  const child = spawn(process.execPath, [join(dir, 'receiver.mjs')], {
    env: { PATH: process.env.PATH, WEBHOOK_SECRET: secret, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  t.teardown(() => void child.kill());
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  const waitFor = async (text: string) => {
    for (let i = 0; i < 500 && !out.includes(text); i++) await new Promise((r) => setTimeout(r, 10));
    t.true(out.includes(text), `expected "${text}" in receiver output: ${out}`);
  };
  await waitFor('listening');

  const url = `http://127.0.0.1:${port}/webhooks`;
  const options = { allowHosts: ['127.0.0.1'], timeoutMs: 5000 };
  const form = envelopeBody(sampleTopicPayload('form-submission'));
  const send = (body: Buffer, extra: Record<string, unknown> = {}) => deliver({ url, body, secret, webhookId: 'dlv_1', ...extra }, options);

  t.is((await send(form)).status, 200);
  await waitFor('processing form-submission:555123');
  t.is((await send(form)).status, 200);
  await waitFor('duplicate form-submission:555123');

  t.is((await send(form, { secret: newSigningSecret() })).status, 401);
  const tenMinutesAgo = Math.floor(Date.now() / 1000) - 600;
  t.is((await send(form, { timestamp: tenMinutesAgo })).status, 401);

  const sample = sampleTopicPayload('client-submission');
  t.is((await send(envelopeBody(sample))).status, 200);
  // The receiver's few lines compute the same key as contentHash().
  await waitFor(`processing client-submission:${contentHash(sample.data)}`);
  // The same data with keys in another order and other spacing is a duplicate by content hash.
  const reverseKeys = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(reverseKeys)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.entries(v)
              .reverse()
              .map(([k, x]) => [k, reverseKeys(x)]),
          )
        : v;
  t.is((await send(Buffer.from(JSON.stringify(reverseKeys(sample), null, 1)))).status, 200);
  await waitFor(`duplicate client-submission:${contentHash(sample.data)}`);

  const event = envelopeBody(sampleV1Event('client.updated'));
  t.is((await send(event)).status, 200);
  await waitFor('processing event:');
});
