// What the dashboard's extraction and review pages show of extracted data: each value by its JSON pointer with
// a readable name, its citation cut to the value's own words, and the page image with the cited boxes drawn on it.
import { html, type SafeHtml } from './html.ts';

export interface Citation {
  page: number;
  text: string;
  confidence: number;
  source: string;
  flagged?: boolean;
  rule?: string;
  span?: string;
  box?: { x: number; y: number; w: number; h: number };
}

/** `/coverages/0/limit` → `coverages › #1 › limit`. */
export const fieldLabel = (pointer: string) =>
  pointer
    .slice(1)
    .split('/')
    .map((p) => (/^\d+$/.test(p) ? `#${Number(p) + 1}` : p.replace(/_/g, ' ')))
    .join(' › ');

/** Every value of extracted_data (citations, review lists and the kind aside) as a JSON pointer, in document order. */
export function leaves(v: unknown, pointer = ''): { pointer: string; value: unknown }[] {
  if (Array.isArray(v)) return v.length ? v.flatMap((x, i) => leaves(x, `${pointer}/${i}`)) : [];
  if (v && typeof v === 'object')
    return Object.entries(v as Record<string, unknown>)
      .filter(([k]) => !(pointer === '' && (k === 'citations' || k === 'policy_type' || k === 'document_kind' || k === 'needs_review')))
      .flatMap(([k, x]) => leaves(x, `${pointer}/${k}`));
  return [{ pointer, value: v }];
}

/** The value at a JSON pointer of extracted data. */
export function valueAt(data: unknown, pointer: string): unknown {
  let v = data;
  for (const p of pointer.slice(1).split('/')) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[p] : undefined;
  return v;
}

// Numbers as they are: a year or a policy number must not gain a thousands separator.
export const showValue = (v: unknown) => (v === null || v === undefined || v === '' ? '—' : String(v));

const SPAN_CHARS = 80;
/** The value's own words on the page, else the first line of the row the rule read, cut short. */
export function shortSpan(c: Citation): string {
  const s = (c.span ?? c.text.split('\n')[0] ?? '').trim();
  return s.length > SPAN_CHARS ? `${s.slice(0, SPAN_CHARS - 1)}…` : s;
}

export const percent = (confidence: number) => `${Math.round(confidence * 100)}%`;

/** A confidence as a small badge: low (under the review threshold) stands out. */
export function confidenceBadge(c: Citation | undefined, uncertain: boolean): SafeHtml {
  if (!c) return html`<span class="dash-conf">—</span>`;
  return html`<span class="dash-conf${uncertain ? ' dash-conf--low' : ''}">${percent(c.confidence)}</span>`;
}

/**
 * The page image with the boxes of the values cited on it drawn over it (an SVG in the page's own points, so the
 * boxes scale with the image); `selected` is the pointer whose box is highlighted (id `selected-box`, which the
 * page's script scrolls to). `href` makes each box a link selecting its field.
 */
export function pageView(o: {
  src: string;
  alt: string;
  size: { w: number; h: number } | null;
  boxes: { pointer: string; box: NonNullable<Citation['box']>; uncertain: boolean }[];
  selected: string | null;
  href?: (pointer: string) => string;
}): SafeHtml {
  const img = html`<img class="dash-page-image" src="${o.src}" alt="${o.alt}" width="1000">`;
  if (!o.size || !o.boxes.length) return html`<div class="dash-pageview">${img}</div>`;
  const pad = 2;
  return html`<div class="dash-pageview">${img}<svg class="dash-pageview__boxes" viewBox="0 0 ${o.size.w.toFixed(1)} ${o.size.h.toFixed(1)}" preserveAspectRatio="none" aria-hidden="true" focusable="false">${o.boxes.map(
    (b) => {
      const on = b.pointer === o.selected;
      const rect = html`<rect class="dash-box${on ? ' dash-box--on' : ''}${b.uncertain ? ' dash-box--check' : ''}"${on ? html` id="selected-box"` : ''} x="${(b.box.x - pad).toFixed(1)}" y="${(b.box.y - pad).toFixed(1)}" width="${(b.box.w + 2 * pad).toFixed(1)}" height="${(b.box.h + 2 * pad).toFixed(1)}"><title>${fieldLabel(b.pointer)}</title></rect>`;
      return o.href ? html`<a href="${o.href(b.pointer)}" tabindex="-1">${rect}</a>` : rect;
    },
  )}</svg></div>`;
}

/**
 * A crop of the page around a box: an SVG whose viewBox is the box with a margin, showing the page image in
 * the page's points (no inline style, so the strict CSP holds).
 */
export function pageCrop(o: { src: string; size: { w: number; h: number }; box: NonNullable<Citation['box']>; label: string }): SafeHtml {
  const mx = 60;
  const my = 14;
  const x = Math.max(0, o.box.x - mx);
  const y = Math.max(0, o.box.y - my);
  const w = Math.min(o.size.w - x, o.box.w + 2 * mx);
  const h = Math.min(o.size.h - y, o.box.h + 2 * my);
  return html`<svg class="dash-crop" viewBox="${x.toFixed(1)} ${y.toFixed(1)} ${w.toFixed(1)} ${h.toFixed(1)}" role="img" aria-label="${o.label}"><image href="${o.src}" x="0" y="0" width="${o.size.w.toFixed(1)}" height="${o.size.h.toFixed(1)}" preserveAspectRatio="none"/><rect class="dash-box dash-box--on" x="${(o.box.x - 2).toFixed(1)}" y="${(o.box.y - 2).toFixed(1)}" width="${(o.box.w + 4).toFixed(1)}" height="${(o.box.h + 4).toFixed(1)}"/></svg>`;
}
