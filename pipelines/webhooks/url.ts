// The one spelling of a webhook URL that is stored and sent to. The WHATWG parser reads many spellings as one URL
// (a backslash as a slash, tabs and line breaks dropped, full-width dots as dots, `LOCALHOST.` with its trailing dot)
// and keeps some that no DNS name can be (`a..b`, `-a-.example`, a bare `%`). A URL is refused when it is not an
// http(s) URL a DNS name or address can serve, and otherwise stored as the parser's href: lower-case host without the
// trailing dot, IDNA names in punycode, numeric hosts as dotted quads, no fragment (never sent).

/** The canonical href of a webhook URL, or why it is refused (a message naming the problem, for a 422). */
export type CanonicalUrl = { ok: true; url: string } | { ok: false; message: string };

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** Canonicalise a webhook URL or say why it cannot be one. */
export function canonicalWebhookUrl(raw: string): CanonicalUrl {
  const refuse = (message: string): CanonicalUrl => ({ ok: false, message });
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x20\x7f]/.test(raw)) return refuse('must not contain white space or control characters');
  if (raw.includes('\\')) return refuse('must not contain a backslash');
  if (/%(?![0-9A-Fa-f]{2})/.test(raw)) return refuse('has a % that does not start a percent-encoded byte');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse('must be an absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return refuse('must be an http or https URL');
  if (url.username || url.password) return refuse('must not carry credentials; use auth instead');
  if (!url.hostname.startsWith('[')) {
    const host = url.hostname.endsWith('.') ? url.hostname.slice(0, -1) : url.hostname;
    if (host.length === 0 || host.length > 253) return refuse('must have a host name');
    if (!host.split('.').every((label) => LABEL.test(label))) {
      return refuse('must have a valid host name (labels of letters, digits and inner hyphens, separated by single dots)');
    }
    url.hostname = host;
  }
  url.hash = '';
  return { ok: true, url: url.href };
}
