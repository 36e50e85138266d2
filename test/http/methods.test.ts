// Methods: a known method a route lacks is 405 with Allow; a method the service does not implement — whether
// Koa sees it (PROPFIND) or Node's parser refuses it before Koa (FOO, lowercase get, CONNECT) — is 501; and
// other requests the parser refuses are 4xx. Every answer is in the error shape of the surface of its path.
import net from 'node:net';
import test from 'ava';
import { startService, type TestService } from '../helpers/server.ts';
import { hasSurfaceShape } from '../helpers/surfaces.ts';
import { requestLineAt } from '../../http/parse_errors.ts';

let svc: TestService;
let port: number;

test.before(async () => {
  svc = await startService();
  port = Number(new URL(svc.url).port);
});
test.after.always(async () => svc?.close());

interface RawReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Send raw bytes on one connection (not half-closed: Node would end a half-closed connection before answering); read every response until the server closes it. */
function raw(bytes: string): Promise<RawReply[]> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => resolve(parseResponses(Buffer.concat(chunks).toString('latin1'))));
  });
}

function parseResponses(text: string): RawReply[] {
  const replies: RawReply[] = [];
  let rest = text;
  while (rest.startsWith('HTTP/1.1 ')) {
    const headEnd = rest.indexOf('\r\n\r\n');
    const [statusLine, ...lines] = rest.slice(0, headEnd).split('\r\n');
    const headers: Record<string, string> = {};
    for (const l of lines) headers[l.slice(0, l.indexOf(':')).toLowerCase()] = l.slice(l.indexOf(':') + 1).trim();
    const length = Number(headers['content-length'] ?? 0);
    replies.push({ status: Number(statusLine.split(' ')[1]), headers, body: rest.slice(headEnd + 4, headEnd + 4 + length) });
    rest = rest.slice(headEnd + 4 + length);
  }
  return replies;
}

const surfaces = ['/v2/forms', '/v1/agencies', '/api/extractions', '/oauth/token', '/files/x', '/graphql'];

test('a method Node does not know is 501 in the error shape of each surface, not plain text', async (t) => {
  for (const path of surfaces) {
    for (const method of ['FOO', 'BREW', 'get']) {
      const [r, ...more] = await raw(`${method} ${path}?x=1 HTTP/1.1\r\nHost: x\r\n\r\n`);
      t.is(r?.status, 501, `${method} ${path}`);
      t.deepEqual(more, []);
      if (path === '/graphql') t.truthy(JSON.parse(r.body).errors[0].message, r.body);
      else t.is(hasSurfaceShape(path, 501, r.headers['content-type'], r.body), null, `${method} ${path}: ${r.body}`);
      t.is(r.headers.connection, 'close');
    }
  }
  const v2 = (await raw('FOO /v2/forms HTTP/1.1\r\nHost: x\r\n\r\n'))[0];
  t.regex(v2.headers['content-type'], /^application\/problem\+json/);
  t.like(JSON.parse(v2.body), { status: 501, title: 'Not Implemented', code: 'not_implemented', detail: 'the method FOO is not implemented' });
  t.is(JSON.parse((await raw('FOO /api/extractions HTTP/1.1\r\nHost: x\r\n\r\n'))[0].body).error, 'not_implemented');
  t.is(JSON.parse((await raw('FOO /oauth/token HTTP/1.1\r\nHost: x\r\n\r\n'))[0].body).error, 'invalid_request');
  // Through an ordinary client too (fetch refuses such methods; node:http sends any token).
  const viaClient = await svc.request('PROPFIND', '/v2/forms');
  t.is(viaClient.status, 501);
});

test('CONNECT is 501 in the surface shape; a method Koa knows but no route has is 501 there too', async (t) => {
  const [connect] = await raw('CONNECT /v2/forms HTTP/1.1\r\nHost: x\r\n\r\n');
  t.is(connect.status, 501);
  t.is(hasSurfaceShape('/v2/forms', 501, connect.headers['content-type'], connect.body), null, connect.body);
  const [authority] = await raw('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
  t.is(authority.status, 501);
  t.truthy(JSON.parse(authority.body).error.message, 'a target without a path gets the default (§7.1) shape');
  const [propfind] = await raw('PROPFIND /v1/agencies HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  t.is(propfind.status, 501);
  t.is(hasSurfaceShape('/v1/agencies', 501, propfind.headers['content-type'], propfind.body), null, propfind.body);
});

test('a known method a route lacks is 405 with Allow, in each surface’s shape', async (t) => {
  for (const [method, path] of [
    ['DELETE', '/v2/forms'],
    ['PUT', '/v1/agencies'],
    ['GET', '/oauth/token'],
    ['PATCH', '/v1/webhooks'],
  ]) {
    const r = await svc.request(method, path);
    t.is(r.status, 405, `${method} ${path}: ${r.text}`);
    t.truthy(r.headers.get('allow'), `${method} ${path} names the allowed methods`);
    t.false(r.headers.get('allow')!.split(/,\s*/).includes(method));
    t.is(hasSurfaceShape(path, 405, r.headers.get('content-type') ?? '', r.text), null, `${method} ${path}: ${r.text}`);
  }
});

test('a pipelined request before the refused one is answered first, then the 501, then the connection closes', async (t) => {
  const replies = await raw('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nFOO /v2/forms/1 HTTP/1.1\r\nHost: x\r\n\r\n');
  t.deepEqual(
    replies.map((r) => r.status),
    [200, 501],
  );
  t.like(JSON.parse(replies[1].body), { status: 501, detail: 'the method FOO is not implemented' });
});

test('other requests the parser refuses are 4xx in the surface shape', async (t) => {
  const [badHeader] = await raw('GET /v2/forms HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n');
  t.is(badHeader.status, 400);
  t.is(hasSurfaceShape('/v2/forms', 400, badHeader.headers['content-type'], badHeader.body), null, badHeader.body);
  const [huge] = await raw(`GET /v1/agencies HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
  t.is(huge.status, 431);
  t.is(hasSurfaceShape('/v1/agencies', 431, huge.headers['content-type'], huge.body), null, huge.body);
  const [garbage] = await raw('\x00\x01\x02 nonsense\r\n\r\n');
  t.is(garbage.status, 501, 'no readable method: not implemented');
  t.truthy(JSON.parse(garbage.body).error.message);
});

test('requestLineAt finds the line the parser stopped in, pipelined or cut short', (t) => {
  const buf = Buffer.from('GET /a HTTP/1.1\r\nHost: x\r\n\r\nFOO /v2/x?y=1 HTTP/1.1\r\nHost: x\r\n\r\n');
  t.deepEqual(requestLineAt(buf, 29), { method: 'FOO', target: '/v2/x?y=1' });
  t.deepEqual(requestLineAt(Buffer.from('FOO /v2/forms'), 1), { method: 'FOO', target: '/v2/forms' });
  t.deepEqual(requestLineAt(Buffer.from('get /v2/forms HTTP/1.1\r\n'), 0), { method: 'get', target: '/v2/forms' });
  t.deepEqual(requestLineAt(Buffer.from('GET /v2/forms HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n'), 30), { method: 'GET', target: '/v2/forms' });
  t.is(requestLineAt(Buffer.from('FOO'), 1), undefined);
  t.is(requestLineAt(undefined, 0), undefined);
});
