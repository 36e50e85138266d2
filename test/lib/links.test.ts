import test from 'ava';
import {
  checkFileLink,
  checkFormContext,
  checkReportToken,
  fileLinkKey,
  formLinkKey,
  reportLinkKey,
  signFileLink,
  signFormContext,
  signReportToken,
} from '../../lib/links.ts';

const key = fileLinkKey(Buffer.alloc(32, 7));
const parse = (url: string) => {
  const u = new URL(url);
  return { blobKey: decodeURIComponent(u.pathname.replace(/^\/files\//, '')), q: u.searchParams };
};

test('a signed link checks ok until it expires, then expired', (t) => {
  const now = Date.UTC(2026, 0, 1);
  const link = signFileLink({ baseUrl: 'https://files.example/', key, blobKey: 'documents/abc.pdf', filename: 'dec page.pdf', ttlSeconds: 60, now });
  t.true(link.url.startsWith('https://files.example/files/documents/abc.pdf?'));
  const { blobKey, q } = parse(link.url);
  const check = (at: number) => checkFileLink(key, blobKey, q.get('expires') ?? undefined, q.get('filename') ?? undefined, q.get('signature') ?? undefined, at);
  t.is(check(now), 'ok');
  t.is(check(now + 60_000), 'ok');
  t.is(check(now + 61_000), 'expired');
});

test('tampering with the path, expiry, filename or signature, or another key, is invalid', (t) => {
  const now = Date.now();
  const link = signFileLink({ baseUrl: 'http://x', key, blobKey: 'documents/abc.pdf', filename: 'a.pdf', ttlSeconds: 60, now });
  const { blobKey, q } = parse(link.url);
  const exp = q.get('expires')!;
  const sig = q.get('signature')!;
  t.is(checkFileLink(key, 'documents/abd.pdf', exp, 'a.pdf', sig, now), 'invalid');
  t.is(checkFileLink(key, blobKey, String(Number(exp) + 1), 'a.pdf', sig, now), 'invalid');
  t.is(checkFileLink(key, blobKey, exp, 'b.pdf', sig, now), 'invalid');
  t.is(checkFileLink(key, blobKey, exp, 'a.pdf', sig.slice(0, -1) + (sig.endsWith('A') ? 'B' : 'A'), now), 'invalid');
  t.is(checkFileLink(fileLinkKey(Buffer.alloc(32, 8)), blobKey, exp, 'a.pdf', sig, now), 'invalid');
  t.is(checkFileLink(key, blobKey, undefined, 'a.pdf', sig, now), 'invalid');
  t.is(checkFileLink(key, blobKey, '1e9', 'a.pdf', sig, now), 'invalid');
  t.is(checkFileLink(key, blobKey, exp, 'a.pdf', 'short', now), 'invalid');
});

test('form link context: intact and unexpired is ok; changed metadata, a non-canonical signature or a past expiry is refused', (t) => {
  const k = formLinkKey(Buffer.alloc(32, 3));
  const now = Date.now();
  const token = signFormContext(k, { form_id: 4, agent_id: 9, metadata: { crm: 'x' }, expires: Math.floor(now / 1000) + 60 });
  t.deepEqual(checkFormContext(k, token, now), {
    ok: true,
    context: { form_id: 4, agent_id: 9, metadata: { crm: 'x' }, expires: Math.floor(now / 1000) + 60 },
  });
  const [body, sig] = token.split('.');
  const changed = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body, 'base64url').toString()), m: { crm: 'y' } })).toString('base64url');
  t.deepEqual(checkFormContext(k, `${changed}.${sig}`, now), { ok: false, reason: 'invalid' });
  const last = sig.at(-1)!;
  const sibling = 'AEIMQUYcgkosw048'.includes(last) ? String.fromCharCode(last.charCodeAt(0) + 1) : last;
  if (sibling !== last) t.deepEqual(checkFormContext(k, `${body}.${sig.slice(0, -1)}${sibling}`, now), { ok: false, reason: 'invalid' });
  t.deepEqual(checkFormContext(k, token, now + 61_000), { ok: false, reason: 'expired' });
  t.deepEqual(checkFormContext(formLinkKey(Buffer.alloc(32, 4)), token, now), { ok: false, reason: 'invalid' });
  t.deepEqual(checkFormContext(k, 'garbage', now), { ok: false, reason: 'invalid' });
});

test('report tokens: verified in constant time, refused when changed, expired by their signed expiry', (t) => {
  const key = reportLinkKey(Buffer.alloc(32, 7));
  const id = '6f1c2c7e-2a4b-4c55-9d1e-0b7f4f3c2a10';
  const now = Date.parse('2026-11-28T12:00:00Z');
  const token = signReportToken(key, id, now / 1000 + 60);
  t.deepEqual(checkReportToken(key, token, now), { ok: true, linkId: id });
  t.deepEqual(checkReportToken(key, token, now + 61_000), { ok: false, reason: 'expired' });
  const [, expires, mac] = token.split('.');
  t.deepEqual(checkReportToken(key, `${id}.${Number(expires) + 3600}.${mac}`, now), { ok: false, reason: 'invalid' }, 'a longer expiry does not verify');
  t.deepEqual(checkReportToken(key, `${id.replace('6f', '7f')}.${expires}.${mac}`, now), { ok: false, reason: 'invalid' }, 'another link id does not verify');
  t.deepEqual(checkReportToken(reportLinkKey(Buffer.alloc(32, 8)), token, now), { ok: false, reason: 'invalid' }, 'another key does not verify');
  t.deepEqual(checkReportToken(key, 'nonsense', now), { ok: false, reason: 'invalid' });
  t.notDeepEqual(reportLinkKey(Buffer.alloc(32, 7)), fileLinkKey(Buffer.alloc(32, 7)), 'its own key');
});
