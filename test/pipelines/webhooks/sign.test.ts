import { createHmac } from 'node:crypto';
import test from 'ava';
import { newSigningSecret, signBody, standardWebhookHeaders, verifySignature, verifyStandardWebhook } from '../../../pipelines/webhooks/sign.ts';

test('secrets are whsec_ + base64 of 32 random bytes', (t) => {
  const s = newSigningSecret();
  t.regex(s, /^whsec_[A-Za-z0-9+/]{43}=$/);
  t.is(Buffer.from(s.slice(6), 'base64').length, 32);
  t.not(s, newSigningSecret());
});

test('x-signature is lowercase hex HMAC-SHA256 of the bytes, and verifies only the same bytes', (t) => {
  const secret = newSigningSecret();
  const body = Buffer.from('{"topic":"form-submission","data":{"a":"ü"}}');
  const sig = signBody(secret, body);
  t.is(sig, createHmac('sha256', secret).update(body).digest('hex'));
  t.is(signBody(secret, body.toString('utf8')), sig);
  t.true(verifySignature(secret, body, sig));
  t.true(verifySignature(secret, body, sig.toUpperCase()));
  t.false(verifySignature(secret, Buffer.from('{"topic": "form-submission","data":{"a":"ü"}}'), sig));
  t.false(verifySignature(newSigningSecret(), body, sig));
  t.false(verifySignature(secret, body, sig.slice(0, 63)));
  t.false(verifySignature(secret, body, undefined));
  t.false(verifySignature(secret, body, 'zz'.repeat(32)));
});

test('Standard Webhooks headers match an independent computation and verify within tolerance', (t) => {
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const body = '{"test": 2432232314}';
  const h = standardWebhookHeaders({ id: 'msg_p5jXN8AQM9LWM0D4loKWxJek', timestamp: 1614265330, body, secret });
  // The example of the Standard Webhooks specification.
  t.is(h['webhook-signature'], 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  t.is(h['webhook-timestamp'], '1614265330');
  const ok = verifyStandardWebhook({ secret, rawBody: body, headers: h, nowSeconds: 1614265330 + 299 });
  t.deepEqual(ok, { ok: true });
  t.deepEqual(verifyStandardWebhook({ secret, rawBody: body, headers: h, nowSeconds: 1614265330 + 301 }), { ok: false, reason: 'timestamp' });
  t.deepEqual(verifyStandardWebhook({ secret, rawBody: body + ' ', headers: h, nowSeconds: 1614265330 }), { ok: false, reason: 'signature' });
  const rotated = { ...h, 'webhook-signature': `v1,AAAA ${h['webhook-signature']}` };
  t.deepEqual(verifyStandardWebhook({ secret, rawBody: body, headers: rotated, nowSeconds: 1614265330 }), { ok: true });
  t.deepEqual(verifyStandardWebhook({ secret, rawBody: body, headers: {}, nowSeconds: 1614265330 }), { ok: false, reason: 'missing_headers' });
});
