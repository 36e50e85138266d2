/** Deepest nesting accepted in request bodies and walked by canonicalJson; real documents stay far below. */
export const MAX_JSON_DEPTH = 64;

/** True when `value` nests arrays/objects deeper than `max` levels; iterative, so any depth is safe to ask about. */
export function nestingExceeds(value: unknown, max = MAX_JSON_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v as Record<string, unknown>)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

/** JSON with object keys sorted (UTF-16 order) and no whitespace: RFC 8785 (JCS) for ordinary JSON values. */
export function canonicalJson(value: unknown): string {
  if (nestingExceeds(value)) throw new RangeError(`canonical JSON is limited to ${MAX_JSON_DEPTH} levels of nesting`);
  return canonical(value);
}

function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new Error('canonical JSON has no NaN or Infinity');
    const s = JSON.stringify(value);
    if (s === undefined) throw new Error(`canonical JSON cannot hold ${typeof value}`);
    return s;
  }
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonical(v))).join(',')}]`;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return canonical(JSON.parse(JSON.stringify(value)));
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
}
