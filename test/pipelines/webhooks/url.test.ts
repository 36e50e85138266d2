// canonicalWebhookUrl: one stored spelling per URL, or a refusal that says why.
import test from 'ava';
import { canonicalWebhookUrl } from '../../../pipelines/webhooks/url.ts';

test('spellings the URL parser reads as one URL are stored as its canonical href', (t) => {
  for (const [given, canonical] of [
    ['http://LOCALHOST.:8080/h', 'http://localhost:8080/h'],
    ['https://a．example/x', 'https://a.example/x'],
    ['https://a。example/x', 'https://a.example/x'],
    ['https://EXAMPLE.com/Path?q=1#frag', 'https://example.com/Path?q=1'],
    ['http://0x7f.1/', 'http://127.0.0.1/'],
    ['https://bücher.example/', 'https://xn--bcher-kva.example/'],
    ['https://[::1]:8443/h', 'https://[::1]:8443/h'],
    ['https://a.example/%41', 'https://a.example/%41'],
    ['https://a.example:443/', 'https://a.example/'],
  ]) {
    t.deepEqual(canonicalWebhookUrl(given), { ok: true, url: canonical }, given);
  }
});

test('URLs no DNS name can serve, or spelled ambiguously, are refused', (t) => {
  for (const [given, why] of [
    ['https://a..b/', /host name/],
    ['https://-a-.example/', /host name/],
    ['https://a_b.example/', /host name/],
    ['https://./', /host name/],
    ['https:\\\\a.example', /backslash/],
    ['https://a.example/%', /%/],
    ['https://a.example/%g0', /%/],
    ['https://a.exa\tmple/', /white space/],
    ['https://a.example/\n', /white space/],
    ['ftp://a.example/', /http/],
    ['https://user:pw@a.example/', /credentials/],
    ['not a url', /white space|absolute/],
    ['/relative', /absolute/],
  ] as const) {
    const c = canonicalWebhookUrl(given);
    t.false(c.ok, given);
    if (!c.ok) t.regex(c.message, why, given);
  }
});
