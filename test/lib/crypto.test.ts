import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import test from 'ava';
import { decryptSecret, encryptSecret, loadOrCreateKey, parseKey } from '../../lib/crypto.ts';

test('round trip, with a fresh IV each time', (t) => {
  const key = randomBytes(32);
  const secret = 'whsec_' + randomBytes(32).toString('base64');
  const a = encryptSecret(key, secret);
  const b = encryptSecret(key, secret);
  t.regex(a, /^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]+$/);
  t.not(a, b);
  t.false(a.includes(secret));
  t.is(decryptSecret(key, a), secret);
  t.is(decryptSecret(key, encryptSecret(key, '')), '');
  t.is(decryptSecret(key, encryptSecret(key, 'pässwörd ✓')), 'pässwörd ✓');
});

test('tampering and a wrong key are detected', (t) => {
  const key = randomBytes(32);
  const blob = encryptSecret(key, 'tok_secret_value');
  const [v, iv, tag, ct] = blob.split('.');
  const flip = (s: string) => {
    const buf = Buffer.from(s, 'base64url');
    buf[0] ^= 1;
    return buf.toString('base64url');
  };
  t.throws(() => decryptSecret(key, [v, iv, tag, flip(ct)].join('.')));
  t.throws(() => decryptSecret(key, [v, iv, flip(tag), ct].join('.')));
  t.throws(() => decryptSecret(key, [v, flip(iv), tag, ct].join('.')));
  t.throws(() => decryptSecret(key, ['v2', iv, tag, ct].join('.')));
  t.throws(() => decryptSecret(key, 'garbage'));
  t.throws(() => decryptSecret(randomBytes(32), blob), { message: /authentication/ });
  t.throws(() => encryptSecret(randomBytes(16), 'x'));
});

test('keys: parsed from configuration, created once under the data dir with mode 0600', (t) => {
  const raw = randomBytes(32);
  t.deepEqual(parseKey(raw.toString('base64')), raw);
  t.deepEqual(parseKey(raw.toString('base64url') + '\n'), raw);
  t.throws(() => parseKey(randomBytes(16).toString('base64')));
  t.throws(() => parseKey('not base64!'));

  const dir = mkdtempSync(join(tmpdir(), 'svc-key-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'keys', 'secrets.key');
  const key = loadOrCreateKey(file);
  t.is(key.length, 32);
  t.is(statSync(file).mode & 0o777, 0o600);
  t.deepEqual(loadOrCreateKey(file), key);
  t.deepEqual(parseKey(readFileSync(file, 'utf8')), key);
});
