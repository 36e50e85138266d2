import test from 'ava';
import { checkFileLink, fileLinkKey, signFileLink } from '../../lib/links.ts';

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
