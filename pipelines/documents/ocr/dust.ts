// Dust on a prepared page image: specks of ink far from any other ink, whitened before the engine reads the page.
import { inkRuns } from '../ink_runs.ts';

/** Gray level below which a pixel is ink (after the contrast stretch ink is near black, paper near white). */
const INK_BELOW = 160;
/** The largest speck taken as dust, in points a side: a scanner's dark pixel blurred, at 150 dpi about 1 pt. */
const MAX_SPECK_PT = 1.5;
/** A speck is dust only with no other ink this close (points): the dot of an i, a period, a colon's dots are nearer. */
const CLEAR_PT = 2;
/** The most specks one group of dust has. */
const MAX_GROUP = 4;

/**
 * Whiten dust in a stretched gray page image (`px`, one byte a pixel), in place; returns the specks whitened.
 * A 150 or 200 dpi scan's dust is upscaled to the 300 dpi image and blurred beyond what the 3x3 median takes
 * out, and the stretch makes it as dark as the text: between the lines tesseract's line finding then joins
 * lines of text through it or reads a line's words as specks ("Northstar te Co Pam"). A speck is a connected
 * run of ink at most MAX_SPECK_PT a side with no larger ink (a letter, a rule) within CLEAR_PT of its box, alone
 * or with one other such speck; text's own small marks (the dot of an i, periods, commas, colons, hyphens) sit
 * closer to their letters than that, and a faint word broken into pieces is more pieces together: they stay.
 */
export function removeDust(px: Uint8Array, width: number, height: number, dpi: number): number {
  const maxSide = Math.max(2, Math.round((MAX_SPECK_PT * dpi) / 72));
  const clear = Math.max(2, Math.round((CLEAR_PT * dpi) / 72));
  // Every run of ink labelled, with its box; then the small ones with no larger ink near whitened.
  const { label, boxes } = inkRuns(width, height, px, INK_BELOW);
  const box = (id: number) => boxes[id - 1];
  const small = (id: number) => box(id).x1 - box(id).x0 < maxSide && box(id).y1 - box(id).y0 < maxSide;
  // Small runs of ink near one another are one group (union-find); a group near larger ink is kept.
  const n = boxes.length + 1;
  const parent = Int32Array.from({ length: n }, (_, i) => i);
  const root = (i: number): number => (parent[i] === i ? i : (parent[i] = root(parent[i])));
  const nearLarge = new Uint8Array(n);
  for (let id = 1; id < n; id++) {
    if (!small(id)) continue;
    const { x0, y0, x1, y1 } = box(id);
    for (let y = Math.max(0, y0 - clear); y <= Math.min(height - 1, y1 + clear); y++)
      for (let x = Math.max(0, x0 - clear); x <= Math.min(width - 1, x1 + clear); x++) {
        const other = label[y * width + x];
        if (other === 0 || other === id) continue;
        if (!small(other)) nearLarge[id] = 1;
        else parent[root(other)] = root(id);
      }
  }
  // A group is dust when none of it is near larger ink and it has at most MAX_GROUP specks: more small runs
  // together are a faint word the scan broke into pieces, not dust (dust a few points apart is rare).
  const size = new Int32Array(n);
  const keep = new Uint8Array(n);
  for (let id = 1; id < n; id++)
    if (small(id)) {
      size[root(id)]++;
      if (nearLarge[id]) keep[root(id)] = 1;
    }
  const dust: number[] = [];
  for (let id = 1; id < n; id++) if (small(id) && !keep[root(id)] && size[root(id)] <= MAX_GROUP) dust.push(id);
  // The specks and their grey fringe go.
  for (const id of dust) {
    const { x0, y0, x1, y1 } = box(id);
    for (let y = Math.max(0, y0 - 2); y <= Math.min(height - 1, y1 + 2); y++)
      px.fill(255, y * width + Math.max(0, x0 - 2), y * width + Math.min(width - 1, x1 + 2) + 1);
  }
  return dust.length;
}
