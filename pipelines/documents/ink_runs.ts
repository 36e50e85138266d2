// Connected runs of ink in a raster (8-neighbours), each with its box: the page's specks for the dust filter, the
// uncovered glyphs of a page whose text layer misses values.

export interface InkRuns {
  /** Each cell's run, 1-based (0: not ink). */
  label: Int32Array;
  /** Run k's box (inclusive cells) at `boxes[k - 1]`, runs in the order their first cell comes row by row. */
  boxes: Array<{ x0: number; y0: number; x1: number; y1: number }>;
}

/**
 * The runs of ink in a `width` × `height` raster of gray levels (`px`, index `y * width + x`): a cell is ink
 * when its level is below `inkBelow`.
 *
 * Row by row, each row's stretches of ink are joined to the stretches of the row above that touch them
 * (overlapping or diagonal), a union-find over stretches rather than a flood over cells: on a 300 dpi page
 * (8 Mpx, mostly paper) the flood's per-cell work was most of the dust filter's time. A stretch that touches
 * none starts a run; runs are numbered in the order they start, and a joined pair keeps the earlier number, so
 * each run keeps the number of its first cell row by row, as a flood fill in that order numbers them.
 */
export function inkRuns(width: number, height: number, px: Uint8Array, inkBelow: number): InkRuns {
  if (px.length !== width * height) throw new Error(`inkRuns: ${px.length} cells for ${width}x${height}`);
  const label = new Int32Array(width * height);
  // Provisional numbers: parent[k] (itself for a root, always smaller otherwise) and each number's own box.
  const parent: number[] = [0];
  const box: number[] = [0, 0, 0, 0];
  const find = (k: number): number => {
    while (parent[k] !== k) k = parent[k] = parent[parent[k]];
    return k;
  };
  // Every stretch: row, first and last column, provisional number (flat).
  const stretches: number[] = [];
  let above = 0; // where the row above's stretches start in `stretches`
  let aboveEnd = 0;
  for (let y = 0; y < height; y++) {
    const row = y * width;
    const start = stretches.length;
    let k = above;
    for (let x = 0; x < width; x++) {
      if (px[row + x] >= inkBelow) continue;
      const x0 = x;
      while (x + 1 < width && px[row + x + 1] < inkBelow) x++;
      const x1 = x;
      // The row above's stretches that touch [x0 - 1, x1 + 1].
      while (k < aboveEnd && stretches[k + 2] < x0 - 1) k += 4;
      let id = 0;
      for (let j = k; j < aboveEnd && stretches[j + 1] <= x1 + 1; j += 4) {
        const r = find(stretches[j + 3]);
        if (id === 0) id = r;
        else if (r < id) {
          parent[id] = r;
          id = r;
        } else if (r > id) parent[r] = id;
      }
      if (id === 0) {
        id = parent.length;
        parent.push(id);
        box.push(x0, y, x1, y);
      } else {
        const b = id * 4;
        if (x0 < box[b]) box[b] = x0;
        if (x1 > box[b + 2]) box[b + 2] = x1;
        box[b + 3] = y;
      }
      stretches.push(y, x0, x1, id);
    }
    above = start;
    aboveEnd = stretches.length;
  }
  // Final numbers: roots in the order they started; every provisional box into its root's.
  const final = new Int32Array(parent.length);
  const boxes: InkRuns['boxes'] = [];
  for (let id = 1; id < parent.length; id++) {
    const r = find(id);
    const b = id * 4;
    if (r === id) {
      final[id] = boxes.push({ x0: box[b], y0: box[b + 1], x1: box[b + 2], y1: box[b + 3] });
      continue;
    }
    final[id] = final[r];
    const into = boxes[final[r] - 1];
    if (box[b] < into.x0) into.x0 = box[b];
    if (box[b + 2] > into.x1) into.x1 = box[b + 2];
    if (box[b + 3] > into.y1) into.y1 = box[b + 3];
  }
  for (let s = 0; s < stretches.length; s += 4) {
    const row = stretches[s] * width;
    label.fill(final[stretches[s + 3]], row + stretches[s + 1], row + stretches[s + 2] + 1);
  }
  return { label, boxes };
}
