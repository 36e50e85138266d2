import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { closeDeliveryConnections, deliver, type DeliveryOptions, type Resolver } from '../../../pipelines/webhooks/deliver.ts';
import { newSigningSecret } from '../../../pipelines/webhooks/sign.ts';
import { closedPort, startReceiver } from './receiver.ts';

const LOCAL: DeliveryOptions = { allowHosts: ['127.0.0.1'], timeoutMs: 5000 };
/** Tests of a POST run twice: on a connection of its own and kept-alive (the worker's agents pooled per pinned address). */
const both = (define: (local: DeliveryOptions, title: (name: string) => string) => void) => {
  for (const keepAlive of [false, true]) define({ ...LOCAL, keepAlive }, (name) => (keepAlive ? `${name} (kept-alive)` : name));
};
// Key order, spacing and a non-ASCII character: re-serialising would change these bytes.
const BODY = '{"topic":"form-submission",  "data":{"z":1,"a":"Zoë"}}';

const request = (url: string, extra: Record<string, unknown> = {}) => ({
  url,
  body: BODY,
  secret: 'whsec_' + Buffer.alloc(32, 7).toString('base64'),
  webhookId: 'dlv_123',
  timestamp: 1_700_000_000,
  ...extra,
});

both((LOCAL, title) => {
  test(title('2xx is ok and both signatures verify over the raw bytes with an independent HMAC'), async (t) => {
    const rx = await startReceiver((_r, res) => res.writeHead(202, { 'x-receipt': 'r1' }).end('thanks'));
    t.teardown(rx.close);
    const secret = newSigningSecret();
    const result = await deliver(request(rx.url(), { secret }), LOCAL);
    t.true(result.ok);
    t.is(result.status, 202);
    t.is(result.error, null);
    t.false(result.disable);
    t.is(result.response_body, 'thanks');
    t.is(result.response_headers['x-receipt'], 'r1');
    t.is(result.remote_address, '127.0.0.1');
    t.true(result.duration_ms >= 0);

    t.is(rx.requests.length, 1);
    const got = rx.requests[0];
    t.is(got.method, 'POST');
    t.is(got.url, '/hook');
    t.true(got.body.equals(Buffer.from(BODY, 'utf8')));
    t.is(got.headers['content-type'], 'application/json');
    t.regex(String(got.headers['user-agent']), /\S/);

    // x-signature: lowercase hex HMAC-SHA256 keyed with the secret string, over the bytes as received.
    const hex = createHmac('sha256', secret).update(got.body).digest('hex');
    t.is(got.headers['x-signature'], hex);
    t.regex(hex, /^[0-9a-f]{64}$/);

    // Standard Webhooks: key = base64-decoded part after whsec_, content = "id.timestamp.body".
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    t.is(key.length, 32);
    const signed = Buffer.concat([Buffer.from(`${got.headers['webhook-id']}.${got.headers['webhook-timestamp']}.`), got.body]);
    t.is(got.headers['webhook-id'], 'dlv_123');
    t.is(got.headers['webhook-timestamp'], '1700000000');
    t.is(got.headers['webhook-signature'], `v1,${createHmac('sha256', key).update(signed).digest('base64')}`);
  });

  test(title('500 is a failure with the status and the body cut at the cap'), async (t) => {
    const rx = await startReceiver((_r, res) => res.writeHead(500).end('x'.repeat(10_000)));
    t.teardown(rx.close);
    const result = await deliver(request(rx.url()), { ...LOCAL, maxResponseBytes: 100 });
    t.false(result.ok);
    t.is(result.status, 500);
    t.is(result.error, null);
    t.is(result.response_body, 'x'.repeat(100));
    t.true(result.response_body_truncated);
  });

  test(title('a 302 is not followed and its Location is recorded'), async (t) => {
    let targetHits = 0;
    const rx = await startReceiver((r, res) => {
      if (r.url === '/elsewhere') {
        targetHits++;
        res.end('ok');
      } else res.writeHead(302, { location: '/elsewhere' }).end();
    });
    t.teardown(rx.close);
    const result = await deliver(request(rx.url()), LOCAL);
    t.false(result.ok);
    t.is(result.status, 302);
    t.is(result.location, '/elsewhere');
    t.is(result.error?.code, 'redirect');
    t.is(targetHits, 0);
    t.is(rx.requests.length, 1);
  });

  test(title('410 asks for the endpoint to be disabled'), async (t) => {
    const rx = await startReceiver((_r, res) => res.writeHead(410).end('gone'));
    t.teardown(rx.close);
    const result = await deliver(request(rx.url()), LOCAL);
    t.false(result.ok);
    t.is(result.status, 410);
    t.true(result.disable);
  });

  test(title('a receiver that never answers times out'), async (t) => {
    const rx = await startReceiver(() => {});
    t.teardown(rx.close);
    const result = await deliver(request(rx.url()), { ...LOCAL, timeoutMs: 300 });
    t.false(result.ok);
    t.is(result.status, null);
    t.is(result.error?.code, 'timeout');
  });

  test(title('a status followed by a stalled body keeps the status and reports the time-out'), async (t) => {
    const rx = await startReceiver((_r, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('partial');
    });
    t.teardown(rx.close);
    // Long enough for the status line to arrive on a loaded machine (2 cores shared by many test files); the body never completes.
    const result = await deliver(request(rx.url()), { ...LOCAL, timeoutMs: 2000 });
    t.is(result.status, 200);
    t.is(result.error?.code, 'timeout');
    t.is(result.response_body, 'partial');
  });

  test(title('connection refused is a connection error'), async (t) => {
    const port = await closedPort();
    const result = await deliver(request(`http://127.0.0.1:${port}/hook`), LOCAL);
    t.false(result.ok);
    t.is(result.status, null);
    t.is(result.error?.code, 'connection');
  });

  test(title('the abort signal ends the attempt'), async (t) => {
    const rx = await startReceiver(() => {});
    t.teardown(rx.close);
    const controller = new AbortController();
    const pending = deliver(request(rx.url()), { ...LOCAL, signal: controller.signal });
    for (let i = 0; i < 200 && rx.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    controller.abort();
    const result = await pending;
    t.is(result.error?.code, 'aborted');
    const before = new AbortController();
    before.abort();
    t.is((await deliver(request(rx.url()), { ...LOCAL, signal: before.signal })).error?.code, 'aborted');
  });
});

// ---- SSRF ------------------------------------------------------------------------------------------

const neverResolve: Resolver = async () => {
  throw new Error('the resolver must not be called');
};

for (const url of [
  'http://10.0.0.1/hook',
  'http://169.254.169.254/latest/meta-data/',
  'http://[fd00::1]/',
  'http://100.64.0.1/',
  'http://0.0.0.0/',
  'http://[::ffff:10.0.0.1]/',
]) {
  test(`refused before any connection: ${url}`, async (t) => {
    // A tiny time-out: had a connection been tried, the answer would be a time-out or a connection error.
    const result = await deliver(request(url), { timeoutMs: 1000, resolve: neverResolve });
    t.is(result.error?.code, 'ssrf_blocked');
    t.is(result.remote_address, null);
    t.is(result.status, null);
  });
}

test('loopback is refused unless allow-listed, and nothing connects', async (t) => {
  const rx = await startReceiver();
  t.teardown(rx.close);
  const port = rx.port;
  const cases: [string, DeliveryOptions][] = [
    [`http://127.0.0.1:${port}/hook`, {}],
    [`http://127.1.2.3:${port}/hook`, {}],
    [`http://[::1]:${port}/hook`, {}],
    [`http://2130706433:${port}/hook`, {}], // 127.0.0.1 spelled as one number
    [`http://0x7f.0.0.1:${port}/hook`, {}],
    [`http://[::ffff:127.0.0.1]:${port}/hook`, {}],
    [`http://localhost:${port}/hook`, {}], // the system resolver: localhost is loopback
    [`http://hooks.partner.test:${port}/hook`, { resolve: async () => [{ address: '127.0.0.1', family: 4 }] }],
    // one private address among public ones is enough to refuse
    [
      `http://mixed.partner.test:${port}/hook`,
      {
        resolve: async () => [
          { address: '93.184.215.14', family: 4 },
          { address: '127.0.0.1', family: 4 },
        ],
      },
    ],
    // allow-listing 127.0.0.1 as a host does not allow other names that resolve there
    [`http://sneaky.partner.test:${port}/hook`, { allowHosts: ['127.0.0.1'], resolve: async () => [{ address: '127.0.0.1', family: 4 }] }],
  ];
  for (const [url, options] of cases) {
    const result = await deliver(request(url), { timeoutMs: 2000, ...options });
    t.is(result.error?.code, 'ssrf_blocked', url);
    t.is(result.remote_address, null, url);
  }
  t.is(rx.connections(), 0);
  t.is(rx.requests.length, 0);
});

both((LOCAL, title) => {
  test(title('an allow-listed name connects to the address it resolved to, keeping the Host header'), async (t) => {
    const rx = await startReceiver();
    t.teardown(rx.close);
    let lookups = 0;
    const resolve: Resolver = async (name) => {
      lookups++;
      t.is(name, 'hooks.partner.test');
      return [{ address: '127.0.0.1', family: 4 }];
    };
    const url = `http://hooks.partner.test:${rx.port}/in?x=1`;
    const result = await deliver(request(url), { allowHosts: ['HOOKS.partner.test'], resolve, timeoutMs: 5000 });
    t.true(result.ok, JSON.stringify(result.error));
    t.is(lookups, 1);
    t.is(result.remote_address, '127.0.0.1');
    t.is(rx.requests[0].headers.host, `hooks.partner.test:${rx.port}`);
    t.is(rx.requests[0].url, '/in?x=1');

    // allowCidrs admits names whose addresses fall in the range
    const viaCidr = await deliver(request(url), { allowCidrs: ['127.0.0.0/8'], resolve, timeoutMs: 5000 });
    t.true(viaCidr.ok);
    t.is(rx.connections(), 2);
  });

  test(title('URLs: scheme, credentials, https_required, resolution failures'), async (t) => {
    const code = async (url: string, options: DeliveryOptions = {}) =>
      (await deliver(request(url), { timeoutMs: 2000, resolve: neverResolve, ...options })).error?.code;
    t.is(await code('not a url'), 'invalid_url');
    t.is(await code('ftp://example.com/x'), 'invalid_url');
    t.is(await code('file:///etc/passwd'), 'invalid_url');
    t.is(await code('https://user:pass@example.com/x'), 'invalid_url');
    t.is(await code('http://example.com/x', { requireHttps: true }), 'https_required');
    t.is(
      await code('http://example.com/x', {
        resolve: async () => {
          throw Object.assign(new Error('getaddrinfo ENOTFOUND example.com'), { code: 'ENOTFOUND' });
        },
      }),
      'dns',
    );
    t.is(await code('http://example.com/x', { resolve: async () => [] }), 'dns');
  });

  test(title('an allow-listed host may use http even when https is required'), async (t) => {
    const rx = await startReceiver();
    t.teardown(rx.close);
    const result = await deliver(request(rx.url()), { ...LOCAL, requireHttps: true });
    t.true(result.ok);
  });

  test(title('alternative endpoint credentials arrive beside the signature'), async (t) => {
    const rx = await startReceiver();
    t.teardown(rx.close);
    await deliver(request(rx.url(), { auth: { kind: 'bearer', token: 'tok_abc' } }), LOCAL);
    await deliver(request(rx.url(), { auth: { kind: 'basic', username: 'partner', password: 'p:ss wörd' } }), LOCAL);
    await deliver(request(rx.url(), { auth: { kind: 'header', name: 'X-Api-Key', value: 'key_123' } }), LOCAL);
    const [bearer, basic, header] = rx.requests;
    t.is(bearer.headers.authorization, 'Bearer tok_abc');
    t.is(basic.headers.authorization, `Basic ${Buffer.from('partner:p:ss wörd').toString('base64')}`);
    t.is(header.headers['x-api-key'], 'key_123');
    for (const r of rx.requests) t.regex(String(r.headers['x-signature']), /^[0-9a-f]{64}$/);
    await t.throwsAsync(() => deliver(request(rx.url(), { auth: { kind: 'header', name: 'X-Signature', value: 'forged' } }), LOCAL));
  });

  test(title('a huge response is not read beyond the cap'), async (t) => {
    let written = 0;
    let finished = false;
    let closed!: () => void;
    const serverDone = new Promise<void>((resolve) => (closed = resolve));
    const total = 256 * 1024 * 1024;
    const server = http.createServer(async (req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'a');
      let gone = false;
      let wake = () => {};
      res.on('close', () => {
        gone = true;
        wake();
        closed();
      });
      while (written < total && !gone) {
        written += chunk.length;
        if (!res.write(chunk)) {
          await new Promise<void>((resolve) => {
            wake = resolve;
            res.once('drain', resolve);
          });
        }
      }
      if (!gone) {
        finished = true;
        res.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.teardown(() => {
      server.closeAllConnections();
      server.close();
    });
    const port = (server.address() as AddressInfo).port;
    const result = await deliver(request(`http://127.0.0.1:${port}/`), { ...LOCAL, maxResponseBytes: 4096 });
    t.true(result.ok);
    t.is(result.response_body.length, 4096);
    t.true(result.response_body_truncated);
    await serverDone; // the receiver sees its connection closed long before it could send everything
    t.false(finished);
    t.true(written < total);
  });
});

both((LOCAL, title) => {
  test(title('https: the pinned address is used with the URL host as TLS server name and Host header'), async (t) => {
    const { readFileSync } = await import('node:fs');
    const https = await import('node:https');
    const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url));
    const cert = fixture('receiver.crt');
    let servername: string | undefined;
    let host: string | undefined;
    const server = https.createServer({ key: fixture('receiver.key'), cert }, (req, res) => {
      servername = (req.socket as import('node:tls').TLSSocket).servername || undefined;
      host = req.headers.host;
      req.resume();
      req.on('end', () => res.end('secure ok'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.teardown(() => {
      server.closeAllConnections();
      server.close();
    });
    const port = (server.address() as AddressInfo).port;
    const url = `https://hooks.partner.test:${port}/hook`;
    const resolve: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
    const options: DeliveryOptions = { allowHosts: ['hooks.partner.test'], resolve, requireHttps: true, timeoutMs: 5000, keepAlive: LOCAL.keepAlive };

    const result = await deliver(request(url), { ...options, ca: cert });
    t.true(result.ok, JSON.stringify(result.error));
    t.is(result.response_body, 'secure ok');
    t.is(servername, 'hooks.partner.test');
    t.is(host, `hooks.partner.test:${port}`);

    // An untrusted certificate is a TLS failure, not a delivery.
    const untrusted = await deliver(request(url), options);
    t.false(untrusted.ok);
    t.is(untrusted.error?.code, 'tls');
  });
});

test('the time-out also bounds name resolution', async (t) => {
  const result = await deliver(request('https://slow-dns.partner.test/hook'), {
    timeoutMs: 200,
    resolve: () => new Promise(() => {}),
  });
  t.is(result.error?.code, 'timeout');
});

both((LOCAL, title) => {
  test(title('an allow-listed IPv6 literal is reached at that address'), async (t) => {
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.end(String(req.headers.host)));
    });
    const listening = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(0, '::1', () => resolve(true));
    });
    if (!listening) return t.pass('no IPv6 loopback on this machine');
    t.teardown(() => server.close());
    const port = (server.address() as AddressInfo).port;
    const result = await deliver(request(`http://[::1]:${port}/hook`), { allowHosts: ['[::1]'], timeoutMs: 5000, keepAlive: LOCAL.keepAlive });
    t.true(result.ok, JSON.stringify(result.error));
    t.is(result.remote_address, '::1');
    t.is(result.response_body, `[::1]:${port}`);
  });
});

test('no secret or credential is echoed into the attempt result', async (t) => {
  const rx = await startReceiver((_r, res) => res.writeHead(500).end('nope'));
  t.teardown(rx.close);
  const secret = newSigningSecret();
  for (const auth of [
    { kind: 'bearer', token: 'tok_do_not_log' },
    { kind: 'header', name: 'x-api-key', value: 'key_do_not_log' },
  ] as const) {
    const result = JSON.stringify(await deliver(request(rx.url(), { secret, auth }), LOCAL));
    t.false(result.includes(secret));
    t.false(result.includes('do_not_log'));
  }
  const refused = JSON.stringify(await deliver(request('http://10.0.0.1/', { secret, auth: { kind: 'bearer', token: 'tok_do_not_log' } }), {}));
  t.false(refused.includes('do_not_log'));
});

// Serial (before the others): it closes every kept-alive connection at its end.
test.serial('kept-alive: more deliveries in flight than sockets share the connected sockets without piling listeners on them', async (t) => {
  let connections = 0;
  let requests = 0;
  const server = http.createServer((req, res) => {
    requests++;
    req.resume().on('end', () => res.writeHead(204).end());
  });
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const warnings: Error[] = [];
  const onWarning = (w: Error) => warnings.push(w);
  process.on('warning', onWarning);
  try {
    // 400 at once over at most 32 sockets: most requests wait at the agent and get a socket another one freed.
    const results = await Promise.all(Array.from({ length: 400 }, (_, i) => deliver(request(url, { webhookId: `msg_${i}` }), { ...LOCAL, keepAlive: true })));
    await new Promise((r) => setImmediate(r));
    t.true(
      results.every((r) => r.ok),
      JSON.stringify(results.find((r) => !r.ok)),
    );
    t.is(requests, 400);
    t.true(connections <= 32, `${connections} connections`);
    t.deepEqual(
      warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map((w) => w.message),
      [],
    );
  } finally {
    process.off('warning', onWarning);
    closeDeliveryConnections();
    server.close();
  }
});

test('kept-alive: a pooled connection the receiver drops before answering is retried once on a new connection', async (t) => {
  // The second request on any connection is cut without an answer (a receiver closing an idle socket as it arrives).
  const perSocket = new WeakMap<object, number>();
  let received = 0;
  let cut = 0;
  const server = http.createServer((req, res) => {
    const n = (perSocket.get(req.socket) ?? 0) + 1;
    perSocket.set(req.socket, n);
    if (n > 1) {
      cut++;
      return req.socket.destroy();
    }
    req.resume().on('end', () => {
      received++;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  t.teardown(() => server.close());
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const results = [];
  for (const id of ['msg_a', 'msg_b', 'msg_c', 'msg_d']) results.push(await deliver(request(url, { webhookId: id }), { ...LOCAL, keepAlive: true }));
  t.deepEqual(
    results.map((r) => r.error),
    [null, null, null, null],
  );
  t.true(cut > 0, 'no request was sent on a kept-alive connection');
  t.is(received, 4);
});
