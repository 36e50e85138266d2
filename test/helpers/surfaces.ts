// The documented error bodies of the surfaces (SPEC §7), as the tests check them.

/** The documented error body of the surface a path belongs to. */
export function hasSurfaceShape(path: string, status: number, type: string, text: string): string | null {
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    return `not JSON: ${text.slice(0, 80)}`;
  }
  if (path.startsWith('/oauth/')) return typeof body?.error === 'string' && typeof body.error_description === 'string' ? null : 'not an RFC 6749 error';
  if (path.startsWith('/v2/'))
    return type.startsWith('application/problem+json') && body?.status === status && typeof body.title === 'string' ? null : 'not problem details';
  if (path.startsWith('/api') || path.startsWith('/files/'))
    return typeof body?.error === 'string' && typeof body.message === 'string' ? null : 'not a §7.2 error';
  return typeof body?.error?.message === 'string' ? null : 'not a §7.1 error';
}
