// Sustained signed deliveries per second from deliver() to a local receiver, beside a peer that POSTs the
// same bytes with a bare http.request (no signing, SSRF check or caps), so the delivery layer's own cost shows.
// `npx tsx bench/webhooks_send.ts [--quick]`, or as a suite of `npm run bench` (export `run`).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { deliver } from '../pipelines/webhooks/deliver.ts';
import { envelopeBody, sampleTopicPayload } from '../pipelines/webhooks/payloads.ts';
import { newSigningSecret } from '../pipelines/webhooks/sign.ts';
import { load, report } from './lib.ts';

export async function run(ctx: { quick: boolean }): Promise<void> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('ok'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}/hook`;
  const body = envelopeBody(sampleTopicPayload('form-submission'));
  const secret = newSigningSecret();
  const seconds = ctx.quick ? 2 : 8;
  try {
    for (const concurrency of [1, 16]) {
      report(
        `webhooks deliver() signed, new connection each, c=${concurrency}`,
        await load(async () => (await deliver({ url, body, secret, webhookId: 'bench' }, { allowHosts: ['127.0.0.1'] })).ok, { concurrency, seconds }),
      );
      report(
        `  peer: bare http.request, new connection each, c=${concurrency}`,
        await load(
          () =>
            new Promise<boolean>((resolve) => {
              const req = http.request(url, { method: 'POST', agent: false, headers: { 'content-type': 'application/json' } }, (res) => {
                res.resume();
                res.on('end', () => resolve(res.statusCode === 200));
              });
              req.on('error', () => resolve(false));
              req.end(body);
            }),
          { concurrency, seconds },
        ),
      );
    }
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run({ quick: process.argv.includes('--quick') });
}
