// A browsable API reference at /docs: Scalar's standalone bundle, served by the service itself from the
// installed npm package (nothing from a CDN), on a page whose Content-Security-Policy allows no inline script
// and no other origin — so the page cannot fetch fonts, telemetry or a proxy from elsewhere even if asked to.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type Router from '@koa/router';
import type { Context } from 'koa';

const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference</title>
</head>
<body>
<div id="api-reference"></div>
<script src="/docs/scalar.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

// Fonts from the system (Scalar's default fonts come from its CDN), no "try it" proxy, no AI agent.
const init = `Scalar.createApiReference('#api-reference', {
  url: '/openapi.json',
  withDefaultFonts: false,
  hideClientButton: false,
  proxyUrl: '',
  telemetry: false,
  agent: { disabled: true },
});
`;

/** The policy of the docs page: scripts and everything else from this origin only; Scalar sets inline styles. */
export const DOCS_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "object-src 'none'",
].join('; ');

/** Path of the standalone bundle inside the installed @scalar/api-reference package. */
export function scalarBundlePath(): string {
  const entry = fileURLToPath(import.meta.resolve('@scalar/api-reference'));
  return path.join(path.dirname(entry), 'browser', 'standalone.js');
}

function etagOf(body: string | Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}

/** GET /docs (the page), /docs/scalar.js (the bundle, read once and cached) and /docs/init.js. */
export function mountDocs(router: Router): void {
  let bundle: Promise<{ body: Buffer; etag: string }> | undefined;
  const send = (ctx: Context, type: string, body: string | Buffer, etag: string, maxAge: number) => {
    ctx.set('Cache-Control', `public, max-age=${maxAge}`);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('ETag', etag);
    if (ctx.get('if-none-match') === etag) {
      ctx.status = 304;
      return;
    }
    ctx.type = type;
    ctx.body = body;
  };
  const pageTag = etagOf(page);
  const initTag = etagOf(init);
  router.get('/docs', (ctx) => {
    ctx.set('Content-Security-Policy', DOCS_CSP);
    ctx.set('Referrer-Policy', 'no-referrer');
    send(ctx, 'text/html; charset=utf-8', page, pageTag, 300);
  });
  router.get('/docs/init.js', (ctx) => send(ctx, 'application/javascript; charset=utf-8', init, initTag, 300));
  router.get('/docs/scalar.js', async (ctx) => {
    bundle ??= readFile(scalarBundlePath()).then((body) => ({ body, etag: etagOf(body) }));
    const b = await bundle;
    send(ctx, 'application/javascript; charset=utf-8', b.body, b.etag, 86_400);
  });
}
