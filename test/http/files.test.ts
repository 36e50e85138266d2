import test from 'ava';
import { fileLinkKey, signFileLink } from '../../lib/links.ts';
import { startService, type TestService } from '../helpers/server.ts';

let svc: TestService;
test.before(async () => {
  svc = await startService();
});
test.after.always(() => svc?.close());

const sign = (blobKey: string, ttlSeconds = 60, filename?: string) =>
  signFileLink({ baseUrl: svc.url, key: fileLinkKey(svc.deps.secretKey), blobKey, filename, ttlSeconds });

test('a signed link downloads the stored bytes without credentials', async (t) => {
  const bytes = Buffer.from('%PDF-1.4 test document');
  const key = await svc.deps.blobs.put('documents', bytes, 'pdf');
  const res = await fetch(sign(key, 60, 'dec page.pdf').url);
  t.is(res.status, 200);
  t.is(res.headers.get('content-type'), 'application/pdf');
  t.regex(res.headers.get('content-disposition') ?? '', /filename="dec page.pdf"/);
  t.deepEqual(Buffer.from(await res.arrayBuffer()), bytes);
});

test('an expired or tampered link is 403 and a removed file 404, in the §7.2 body', async (t) => {
  const key = await svc.deps.blobs.put('documents', Buffer.from('%PDF-1.4 other'), 'pdf');
  const expired = signFileLink({ baseUrl: svc.url, key: fileLinkKey(svc.deps.secretKey), blobKey: key, ttlSeconds: 60, now: Date.now() - 120_000 });
  let res = await fetch(expired.url);
  t.is(res.status, 403);
  t.like(await res.json(), { error: 'link_expired' });

  const good = sign(key).url;
  res = await fetch(good.replace(/signature=[^&]+/, 'signature=' + 'A'.repeat(43)));
  t.is(res.status, 403);
  t.like(await res.json(), { error: 'forbidden' });
  res = await fetch(good.replace('expires=', 'expires=1'));
  t.is(res.status, 403);

  const missing = sign(key.replace(/[0-9a-f]{64}/, 'f'.repeat(64))).url;
  res = await fetch(missing);
  t.is(res.status, 404);
  t.like(await res.json(), { error: 'not_found' });
});
