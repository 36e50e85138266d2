import test from 'ava';
import { inAnyCidr, nonGlobalReason, parseCidr, parseIp } from '../../../pipelines/webhooks/ssrf.ts';

const blocked = [
  '127.0.0.1',
  '127.255.255.254',
  '10.0.0.1',
  '172.16.0.1',
  '172.31.255.255',
  '192.168.1.1',
  '169.254.169.254',
  '100.64.0.1',
  '100.127.255.255',
  '0.0.0.0',
  '0.1.2.3',
  '224.0.0.1',
  '239.255.255.250',
  '255.255.255.255',
  '240.0.0.1',
  '192.0.2.10',
  '198.51.100.7',
  '203.0.113.9',
  '198.18.0.1',
  '192.0.0.8',
  '::1',
  '::',
  '0:0:0:0:0:0:0:1',
  'fe80::1',
  'fe80::1%eth0',
  'fc00::1',
  'fd12:3456::1',
  'ff02::1',
  'fec0::1',
  '::ffff:127.0.0.1',
  '::ffff:7f00:1',
  '::ffff:10.0.0.1',
  '::ffff:169.254.169.254',
  '64:ff9b::a9fe:a9fe',
  '2001:db8::1',
  '2002:7f00:1::',
  '2001:0:4136:e378::1',
  '::127.0.0.1',
  '100::1',
  '1::',
];
const allowed = [
  '8.8.8.8',
  '1.1.1.1',
  '93.184.215.14',
  '172.15.255.255',
  '172.32.0.1',
  '100.128.0.1',
  '2606:4700:4700::1111',
  '2a00:1450:4001:81c::200e',
  '::ffff:8.8.8.8',
  '64:ff9b::808:808',
];

test('non-global addresses are refused, in every spelling', (t) => {
  for (const a of blocked) t.truthy(nonGlobalReason(a), a);
  for (const a of allowed) t.is(nonGlobalReason(a), null, a);
  t.is(nonGlobalReason('not-an-ip'), 'invalid address');
  t.deepEqual(parseIp('::ffff:7f00:1'), parseIp('::ffff:127.0.0.1'));
});

test('allow-listed ranges', (t) => {
  const cidrs = ['127.0.0.1', '10.1.0.0/16', 'fd00::/8'].map(parseCidr);
  t.true(inAnyCidr('127.0.0.1', cidrs));
  t.false(inAnyCidr('127.0.0.2', cidrs));
  t.true(inAnyCidr('10.1.200.3', cidrs));
  t.false(inAnyCidr('10.2.0.1', cidrs));
  t.true(inAnyCidr('fd00::5', cidrs));
  t.throws(() => parseCidr('10.0.0.0/33'));
  t.throws(() => parseCidr('example.com'));
});
