// The parent frame (SPEC §6.5): messages go to an explicit target origin, the framing page's when the agency
// registered it, never '*'.
import { data } from './page.ts';

/** The framing page's origin when it is one the agency registered (or this service itself). */
export function parentOrigin(): string | null {
  if (window.parent === window) return null;
  const ancestors = (location as Location & { ancestorOrigins?: DOMStringList }).ancestorOrigins;
  let candidate = ancestors && ancestors.length ? ancestors[0] : null;
  if (!candidate && document.referrer) {
    try {
      candidate = new URL(document.referrer).origin;
    } catch {
      candidate = null;
    }
  }
  if (!candidate) return null;
  return candidate === location.origin || data.origins.includes(candidate) ? candidate : null;
}
export const target = parentOrigin();
export function post(message: Record<string, unknown>): void {
  if (target) window.parent.postMessage(message, target);
}

let lastHeight = 0;
export function reportHeight(): void {
  const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
  if (height !== lastHeight) {
    lastHeight = height;
    post({ type: 'service:resize', height });
  }
}
