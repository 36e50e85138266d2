// The shell of every server-rendered page: document, head, the one stylesheet, the brand colour, and (unless
// embedded) a header with the agency's name and logo. Pages pass their body and scripts; everything they
// interpolate is escaped by `html`.
import { html, raw, type SafeHtml } from './html.ts';

export interface Brand {
  name: string;
  /** Six hex digits without '#', or null for the default colour. */
  color: string | null;
  logoUrl: string | null;
}

export interface PageOptions {
  title: string;
  brand: Brand;
  /** Inside a partner's frame: no header, no footer, transparent background. */
  embed?: boolean;
  body: SafeHtml;
  stylesheetUrl: string;
  scriptUrls?: string[];
  /** Nonce of the one inline <style> (the brand colour), matching the page's CSP. */
  nonce: string;
  footer?: SafeHtml;
  /** Show the agency header (default: unless embedded); off when the agency is unknown. */
  header?: boolean;
}

const HEX = /^[0-9A-Fa-f]{6}$/;

/** Relative luminance of a hex colour (WCAG 2). */
function luminance(hex: string): number {
  const c = [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
  return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
}

const contrast = (a: number, b: number) => (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);

/** The brand colour, the text colour readable on it, and an ink for accents on white, as CSS custom properties. */
export function brandCss(color: string | null): string {
  const brand = color && HEX.test(color) ? color.toLowerCase() : '2563eb';
  const l = luminance(brand);
  // Button text: white or near-black when either reads (AA, 4.5:1), else whichever of white and black reads best.
  const onBrand = ['ffffff', '111827'].find((c) => contrast(l, luminance(c)) >= 4.5) ?? (contrast(l, 1) >= contrast(l, 0) ? 'ffffff' : '000000');
  // Links, focus rings and selected choices sit on white: the brand colour only when it reads as text (AA).
  const ink = contrast(l, 1) >= 4.5 ? brand : '1f2937';
  return `:root{--brand:#${brand};--on-brand:#${onBrand};--brand-ink:#${ink}}`;
}

/** A complete HTML document. */
export function layout(o: PageOptions): SafeHtml {
  const header =
    o.embed || o.header === false
      ? ''
      : html`<header class="site-header"><div class="site-header__inner">${
          o.brand.logoUrl
            ? html`<img class="site-header__logo" src="${o.brand.logoUrl}" alt="${o.brand.name}">`
            : html`<span class="site-header__mark" aria-hidden="true">${o.brand.name.slice(0, 1).toUpperCase()}</span>`
        }<span class="site-header__name">${o.brand.name}</span></div></header>`;
  return html`<!doctype html>
<html lang="en" class="${o.embed ? 'is-embed' : 'is-page'}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<link rel="icon" href="data:,">
<title>${o.title}</title>
<link rel="stylesheet" href="${o.stylesheetUrl}">
<style nonce="${o.nonce}">${raw(brandCss(o.brand.color))}</style>
</head>
<body>
${header}
<main class="page" id="main">${o.body}</main>
${o.embed ? '' : (o.footer ?? '')}
${(o.scriptUrls ?? []).map((u) => html`<script src="${u}" defer></script>`)}
</body>
</html>`;
}

/** A whole-page message (404, expired link…), same shell, no script. */
export function messagePage(o: { title: string; message: string; brand: Brand | null; stylesheetUrl: string; nonce: string; embed?: boolean }): SafeHtml {
  return layout({
    title: o.title,
    brand: o.brand ?? { name: '', color: null, logoUrl: null },
    header: o.brand !== null,
    embed: o.embed,
    stylesheetUrl: o.stylesheetUrl,
    nonce: o.nonce,
    body: html`<section class="card card--message"><h1 class="card__title">${o.title}</h1><p class="lede">${o.message}</p></section>`,
  });
}

/** The page's Content-Security-Policy: own scripts and styles only, the brand style by nonce, framing by `frameAncestors`. */
export function contentSecurityPolicy(o: { nonce: string; frameAncestors: string[]; imgOrigins: string[] }): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self' 'nonce-${o.nonce}'`,
    `img-src 'self' data: ${o.imgOrigins.join(' ')}`.trim(),
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    `frame-ancestors 'self'${o.frameAncestors.map((a) => ` ${a}`).join('')}`,
  ].join('; ');
}
