// Property: no input gives a 5xx. Every operation of the OpenAPI document (so routes added later are covered
// without anyone listing them) gets generated junk — hex and exponent ids, NUL bytes, invalid UTF-8, URLs
// only a loose validator accepts, deep nesting, wrong types, bodies that claim gzip, unknown methods — and
// must answer below 500 in its surface's error shape.
import http from 'node:http';
import zlib from 'node:zlib';
import test from 'ava';
import fc from 'fast-check';
import { startService, type TestService } from '../helpers/server.ts';
import { hasSurfaceShape } from '../helpers/surfaces.ts';

let svc: TestService;
let creds: Record<string, string>;
let valid: Record<string, string>;
let doc: { paths: Record<string, Record<string, Operation>> };

interface Operation {
  security?: Array<Record<string, unknown>>;
  requestBody?: { content: Record<string, { schema?: { properties?: Record<string, unknown>; $ref?: string } }> };
}

test.before(async () => {
  svc = await startService({ RATE_LIMIT_V1_PER_WINDOW: '100000', RATE_LIMIT_TOKEN_PER_WINDOW: '100000' });
  const oauth = await svc.oauthClient();
  const a = await svc.agency(oauth.token);
  const victim = (
    await svc.request('POST', `/v1/agencies/${a.agencyId}/agents`, {
      token: oauth.token,
      json: { first_name: 'Vic', last_name: 'Tim', email: 'victim@example.com' },
    })
  ).body.data;
  const key = await svc.apiKey(a.ownerToken, a.agencyId, 'test');
  const live = await svc.apiKey(a.ownerToken, a.agencyId, 'live');
  const keys = (await svc.request('GET', `/v1/agencies/${a.agencyId}/api-keys`, { token: a.ownerToken })).body.data;
  const form = (
    await svc.request('POST', '/v2/forms', {
      token: key,
      headers: { 'Idempotency-Key': crypto.randomUUID() },
      json: { name: 'F', owner: { type: 'agency', agency_id: a.agencyId }, insurance_line: 'personal_auto' },
    })
  ).body;
  const sub = (await svc.request('POST', '/v1/webhooks', { token: a.ownerToken, json: { url: 'https://hooks.example.com/x', events: ['*'] } })).body.data;
  creds = { oauthClientToken: oauth.token, agentToken: a.ownerToken, apiKey: key, liveKey: live };
  valid = {
    agency_id: String(a.agencyId),
    agent_id: String(victim.id),
    key_id: String(keys.find((k: { mode: string }) => k.mode === 'live').id),
    id: String(form.id),
    webhook_uuid: sub.uuid,
    topic: 'form-submission',
    delivery_id: '1',
    key: 'uploads/x.pdf',
  };
  doc = (await svc.request('GET', '/openapi.json')).body;
});
test.after.always(async () => svc?.close());

const junkStrings = [
  '0x1',
  '1e0',
  '1E3',
  '+1',
  '-1',
  '01',
  '1.0',
  ' 1',
  '١',
  'NaN',
  'Infinity',
  '99999999999999999999999',
  '9007199254740993',
  '%00',
  'a%00b',
  '%FF%FE',
  '%C0%AF',
  '%ED%A0%80',
  '%',
  '%zz',
  '..%2F..%2Fetc%2Fpasswd',
  '%2e%2e',
  "'; drop table x; --",
  '*',
  '{id}',
];
const junkValues: unknown[] = [
  'nul\u0000byte',
  '\ud800',
  'x'.repeat(5000),
  '',
  ' ',
  null,
  true,
  0,
  -1,
  1e308,
  2 ** 64,
  0.5,
  [],
  {},
  [null],
  { a: { b: [] } },
  'http://[::1',
  'http://exa mple.com/',
  'http://a:1:2/',
  'http://256.1.1.1/',
  'http://1.2.3.999/x',
  'http://example.com:99999/',
  'https://ex%zzample.com',
  'javascript:alert(1)',
  'http://127.0.0.1/',
  'http://[::ffff:127.0.0.1]/',
  '0x1',
  '1e0',
  '<script>',
  '\u202e',
  '😀',
];

function deep(levels: number, kind: 'array' | 'object'): string {
  return kind === 'array' ? '['.repeat(levels) + ']'.repeat(levels) : '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
}

/** Bodies: junk values under the operation's own field names (so validation passes further), raw byte junk, and deep nesting. */
function bodyArb(fields: string[]) {
  const value = fc.oneof(fc.constantFrom(...junkValues), fc.string({ maxLength: 40, unit: 'binary' }), fc.jsonValue({ maxDepth: 3 }));
  const object = fields.length
    ? fc.dictionary(fc.constantFrom(...fields), value, { maxKeys: fields.length })
    : fc.dictionary(fc.string({ maxLength: 8 }), value, { maxKeys: 4 });
  return fc.oneof(
    object.map((o) => ({ bytes: Buffer.from(JSON.stringify(o)), type: 'application/json' })),
    object.map((o) => ({ bytes: Buffer.from(JSON.stringify(o).replace(/"nul\\u0000byte"/g, '"raw\u0000nul"')), type: 'application/json' })),
    fc.constantFrom(
      { bytes: Buffer.from(deep(5000, 'array')), type: 'application/json' },
      { bytes: Buffer.from(deep(3000, 'object')), type: 'application/json' },
      { bytes: Buffer.from(`{"${fields[0] ?? 'name'}": ${deep(100, 'array')}}`), type: 'application/json' },
      {
        bytes: Buffer.concat([Buffer.from(`{"${fields[0] ?? 'name'}": "`), Buffer.from([0xff, 0xfe, 0xc0, 0xaf]), Buffer.from('"}')]),
        type: 'application/json',
      },
      { bytes: Buffer.from('{"a": 1, "a": 2'), type: 'application/json' },
      { bytes: Buffer.from('\u0000'), type: 'application/json' },
      { bytes: Buffer.from(`${fields[0] ?? 'name'}=%FF%00&x=1`), type: 'application/x-www-form-urlencoded' },
      { bytes: Buffer.from('--x\r\nContent-Disposition: form-data; name="a"\r\n\r\nb\r\n'), type: 'multipart/form-data; boundary=x' },
      { bytes: Buffer.from('not json at all'), type: 'text/plain' },
    ),
  );
}

const encodingArb = fc.constantFrom(undefined, undefined, undefined, 'gzip', 'deflate', 'br', 'x-unknown', 'gzip, gzip');
const methodArb = fc.constantFrom<string | undefined>(
  undefined,
  undefined,
  undefined,
  undefined,
  'PUT',
  'PATCH',
  'DELETE',
  'GET',
  'POST',
  'PROPFIND',
  'PURGE',
  'LINK',
);

function send(method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<{ status: number; type: string; text: string }> {
  const u = new URL(svc.url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: u.hostname, port: u.port, method, path, headers: { ...headers, ...(body ? { 'content-length': String(body.length) } : {}) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), text: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const order = (m: string) => ['get', 'put', 'patch', 'post', 'delete'].indexOf(m);

test('every operation answers generated junk below 500, in its surface’s error shape', async (t) => {
  const ops = Object.entries(doc.paths).flatMap(([p, o]) => Object.entries(o).map(([m, op]) => ({ path: p, method: m, op })));
  t.true(ops.length >= 30, 'the document lists the routes');
  // Destructive calls last, so earlier operations run with live credentials.
  ops.sort((a, b) => order(a.method) - order(b.method));
  const failures: string[] = [];
  for (const { path, method, op } of ops) {
    const scheme = Object.keys(op.security?.[0] ?? {})[0];
    const fields = Object.values(op.requestBody?.content ?? {}).flatMap((c) => Object.keys(c.schema?.properties ?? {}));
    const params = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    const paramArb = (name: string) =>
      fc.oneof(fc.constantFrom(...junkStrings), fc.constant(encodeURIComponent(valid[name] ?? '1')), fc.string({ maxLength: 12 }).map(encodeURIComponent));
    await fc
      .assert(
        fc.asyncProperty(
          fc.tuple(...params.map(paramArb)),
          fc.dictionary(
            fc.constantFrom('limit', 'cursor', 'status', 'page', 'perPage', 'filterByEmail', 'includeDeactivated', 'exp', 'sig'),
            fc.constantFrom(...junkStrings),
          ),
          bodyArb(fields),
          encodingArb,
          methodArb,
          fc.constantFrom<string | undefined>(undefined, 'ok', '\u00ff\u00fe', 'not-a-uuid', crypto.randomUUID()),
          async (values, query, body, encoding, otherMethod, idemKey) => {
            let p = path;
            params.forEach((name, i) => (p = p.replace(`{${name}}`, values[i] || '%00')));
            const qs = Object.entries(query)
              .map(([k, v]) => `${k}=${v}`)
              .join('&');
            const target = qs ? `${p}?${qs}` : p;
            const m = (otherMethod ?? method).toUpperCase();
            const headers: Record<string, string> = { 'content-type': body.type, 'idempotency-key': idemKey ?? crypto.randomUUID() };
            if (scheme) headers.authorization = `Bearer ${creds[scheme]}`;
            let bytes = body.bytes;
            if (encoding) {
              headers['content-encoding'] = encoding;
              // Half the time a body that really is gzip: its content must still be judged as above.
              if (encoding === 'gzip' && bytes.length % 2 === 0) bytes = zlib.gzipSync(bytes);
            }
            const withBody = m !== 'GET' && m !== 'DELETE';
            const r = await send(m, target, headers, withBody ? bytes : undefined);
            // 501 is the documented answer to a method the service does not implement at all; any other 5xx is a fault.
            const unimplemented = r.status === 501 && !['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].includes(m);
            const problem =
              r.status >= 500 && !unimplemented ? `status ${r.status}` : r.status >= 400 ? hasSurfaceShape(target, r.status, r.type, r.text) : null;
            if (problem) {
              failures.push(
                `${m} ${target} [${body.type}${encoding ? `, ${encoding}` : ''}] ${bytes.subarray(0, 60).toString('utf8')} → ${r.status} ${problem}: ${r.text.slice(0, 160)}`,
              );
              return false;
            }
            return true;
          },
        ),
        { numRuns: 12, seed: 14, endOnFailure: true },
      )
      .catch(() => {});
  }
  t.deepEqual(failures, []);
});

test('the classes by hand: hex and exponent ids never match, deep nesting, bad gzip, 405 and 501 in each surface’s shape', async (t) => {
  const agent = { authorization: `Bearer ${creds.agentToken}` };
  const key = { authorization: `Bearer ${creds.apiKey}` };
  for (const spelled of ['0x' + Number(valid.agency_id).toString(16), `${valid.agency_id}e0`, `0${valid.agency_id}`]) {
    const r = await send('GET', `/v1/agencies/${spelled}`, agent);
    t.is(r.status, 400, `${spelled} is not an id`);
  }
  t.is((await send('GET', `/v1/agencies/${valid.agency_id}`, agent)).status, 200);
  const formHex = await send('GET', `/v2/forms/0x${Number(valid.id).toString(16)}`, key);
  t.is(formHex.status, 400);
  t.regex(formHex.type, /problem\+json/);

  const deepBody = Buffer.from(`{"name": ${deep(10000, 'array')}}`);
  const nested = await send('POST', '/v2/forms', { ...key, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() }, deepBody);
  t.is(nested.status, 400, nested.text);
  t.regex(JSON.parse(nested.text).detail, /nested/);

  const badGzip = await send(
    'POST',
    '/v1/webhooks',
    { ...agent, 'content-type': 'application/json', 'content-encoding': 'gzip' },
    Buffer.from('{"url": "https://x.example.com"}'),
  );
  t.is(badGzip.status, 400, badGzip.text);
  t.truthy(JSON.parse(badGzip.text).error.message);
  const unknownEncoding = await send('POST', '/v1/webhooks', { ...agent, 'content-type': 'application/json', 'content-encoding': 'x-zip' }, Buffer.from('{}'));
  t.is(unknownEncoding.status, 415, unknownEncoding.text);

  const nul = await send(
    'POST',
    '/v1/webhooks',
    { ...agent, 'content-type': 'application/json' },
    Buffer.from(JSON.stringify({ url: 'https://x.example.com/h', events: ['*'], description: 'nul\u0000' })),
  );
  t.is(nul.status, 400, nul.text);
  const badUtf8 = await send(
    'POST',
    '/v1/webhooks',
    { ...agent, 'content-type': 'application/json' },
    Buffer.concat([Buffer.from('{"url": "https://x.example.com/h", "events": ["*"], "description": "'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]),
  );
  t.true(badUtf8.status < 500, badUtf8.text);

  for (const url of ['http://[::1', 'http://exa mple.com/', 'http://a:1:2/', 'http://256.1.1.1/']) {
    const r = await send(
      'PUT',
      '/v2/webhook-endpoints/form-submission',
      { ...key, 'content-type': 'application/json' },
      Buffer.from(JSON.stringify({ staging_url: url })),
    );
    t.is(r.status, 422, `${url}: ${r.text}`);
    t.is(JSON.parse(r.text).errors[0].pointer, '/staging_url');
  }

  const notAllowed = await send('DELETE', '/v2/forms', key);
  t.is(notAllowed.status, 405);
  t.regex(notAllowed.type, /problem\+json/);
  t.regex(String((await send('DELETE', '/v1/webhooks', agent)).status), /405/);
  const v1NotAllowed = await send('PUT', '/v1/webhooks', agent);
  t.truthy(JSON.parse(v1NotAllowed.text).error.message);
  const notImplemented = await send('PROPFIND', '/v2/forms', key);
  t.is(notImplemented.status, 501);
  t.regex(notImplemented.type, /problem\+json/);
  const oauth405 = await send('GET', '/oauth/token', {});
  t.is(oauth405.status, 405);
  t.is(JSON.parse(oauth405.text).error, 'invalid_request');
  t.truthy((await send('GET', '/oauth/token', {})).text);
});

test('multipart: a repeated file part and an oversized text field are 400s that say which', async (t) => {
  const oauth = { authorization: `Bearer ${creds.oauthClientToken}` };
  const part = (name: string, value: string | Buffer, filename?: string) =>
    Buffer.concat([
      Buffer.from(`--b\r\nContent-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"\r\nContent-Type: image/png` : ''}\r\n\r\n`),
      Buffer.from(value),
      Buffer.from('\r\n'),
    ]);
  const png = Buffer.from('89504e470d0a1a0a', 'hex');
  const twice = Buffer.concat([
    part('first_name', 'A'),
    part('last_name', 'B'),
    part('email', 'ab@example.com'),
    part('profile_picture', png, 'a.png'),
    part('profile_picture', png, 'b.png'),
    Buffer.from('--b--\r\n'),
  ]);
  const r = await send('POST', `/v1/agencies/${valid.agency_id}/agents`, { ...oauth, 'content-type': 'multipart/form-data; boundary=b' }, twice);
  t.is(r.status, 400, r.text);
  t.regex(JSON.parse(r.text).error.message, /profile_picture/);
  const bigField = Buffer.concat([part('first_name', 'x'.repeat(1024 * 1024 + 10)), part('profile_picture', png, 'a.png'), Buffer.from('--b--\r\n')]);
  const big = await send('POST', `/v1/agencies/${valid.agency_id}/agents`, { ...oauth, 'content-type': 'multipart/form-data; boundary=b' }, bigField);
  t.is(big.status, 400, big.text);
  t.regex(JSON.parse(big.text).error.message, /text field/);
});
