// The page building blocks: escaping, the JSON block that no value can break out of, readable brand colours,
// and the CSP.
import test from 'ava';
import { escapeHtml, html, jsonForScript, raw } from '../../http/pages/html.ts';
import { brandCss, contentSecurityPolicy, layout } from '../../http/pages/layout.ts';

test('interpolated values are escaped; only html`` results and raw constants pass through', (t) => {
  const evil = `"><script>alert(1)</script><img src=x onerror='y'>`;
  const out = html`<p title="${evil}">${evil}${html`<b>${'&'}</b>`}${raw('<i>ok</i>')}${null}${false}${['<a>', 1]}</p>`.value;
  t.false(out.includes('<script>'));
  t.false(out.includes(`"><`));
  t.is(out, `<p title="${escapeHtml(evil)}">${escapeHtml(evil)}<b>&amp;</b><i>ok</i>&lt;a&gt;1</p>`);
});

test('the page data block cannot close its script tag or start a comment', (t) => {
  const json = jsonForScript({ label: '</script><script>alert(1)</script><!--', sep: '\u2028' }).value;
  t.false(/<\/script|<!--/i.test(json));
  t.deepEqual(JSON.parse(json), { label: '</script><script>alert(1)</script><!--', sep: '\u2028' });
});

const lum = (hex: string) => {
  const c = [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
  return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
};
const ratio = (a: string, b: string) => (Math.max(lum(a), lum(b)) + 0.05) / (Math.min(lum(a), lum(b)) + 0.05);

test('button text on any brand colour and accents on white meet WCAG AA', (t) => {
  for (const color of ['0E7C66', 'FFD400', 'E67E22', '2563EB', '000000', 'FFFFFF', '7F7F7F', 'FF0000', '00FF00']) {
    const css = brandCss(color);
    const [, brand, on, ink] = /--brand:#(\w+);--on-brand:#(\w+);--brand-ink:#(\w+)/.exec(css)!;
    t.true(ratio(brand, on) >= 4.5, `${color}: button text ${ratio(brand, on).toFixed(2)}`);
    t.true(ratio(ink, 'ffffff') >= 4.5, `${color}: ink on white ${ratio(ink, 'ffffff').toFixed(2)}`);
  }
  t.is(brandCss('not-a-colour; } body { display:none'), brandCss(null), 'anything but six hex digits falls back');
});

test('the CSP allows own scripts only, the brand style by nonce, and framing by the listed origins', (t) => {
  const csp = contentSecurityPolicy({ nonce: 'abc', frameAncestors: ['https://a.example', 'http://localhost:8080'], imgOrigins: ['https://api.example'] });
  t.regex(csp, /script-src 'self';/);
  t.regex(csp, /style-src 'self' 'nonce-abc';/);
  t.regex(csp, /frame-ancestors 'self' https:\/\/a\.example http:\/\/localhost:8080$/);
  t.regex(csp, /default-src 'none'/);
  const page = layout({
    title: 'T <x>',
    brand: { name: 'A&B', color: null, logoUrl: null },
    body: html`<p>x</p>`,
    stylesheetUrl: '/assets/p.css',
    nonce: 'abc',
  }).value;
  t.regex(page, /<title>T &lt;x&gt;<\/title>/);
  t.regex(page, /<style nonce="abc">:root\{--brand:#2563eb/);
  t.regex(page, /A&amp;B/);
});
