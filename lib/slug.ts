/** ASCII, lowercase, hyphenated slug of free text ("Zoë O'Brien" → "zoe-obrien"). */
export function slugify(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/ß/g, 'ss')
    .replace(/æ/gi, 'ae')
    .replace(/ø/gi, 'o')
    .replace(/ł/gi, 'l')
    .toLowerCase()
    .replace(/['’`]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 70)
    .replace(/-+$/, '');
}

/**
 * First path segments of the service's own routes, never given to an agent as its slug (hosted forms live at
 * /{agent_slug}/form/…). The SQL twin is app_private.reserved_agent_slugs(), which
 * app_private.unique_agent_slug consults; test/lib/slug.test.ts checks both lists against every route.
 */
export const RESERVED_SLUGS: readonly string[] = [
  'api',
  'assets',
  'dashboard',
  'docs',
  'files',
  'graphiql',
  'graphql',
  'healthz',
  'metrics',
  'oauth',
  'openapi',
  'v1',
  'v2',
  'v3',
];

/** Whether a slug is a route word of the service (see RESERVED_SLUGS). */
export const isReservedSlug = (slug: string): boolean => RESERVED_SLUGS.includes(slug);
