// Connected runs of ink in a raster (8-neighbours), each with its box: the page's specks for the dust filter, the
// uncovered glyphs of a page whose text layer misses values.

export interface InkRuns {
  /** Each cell's run, 1-based (0: not ink). */
  label: Int32Array;
  /** Run k's box (inclusive cells) at `boxes[k - 1]`, runs in the order their first cell comes row by row. */
  boxes: Array<{ x0: number; y0: number; x1: number; y1: number }>;
}

/** The runs of cells `isInk` says are ink, in a `width` × `height` raster (index `y * width + x`). */
export function inkRuns(width: number, height: number, isInk: (i: number) => boolean): InkRuns {
  const label = new Int32Array(width * height);
  const boxes: InkRuns['boxes'] = [];
  const stack: number[] = [];
  for (let start = 0; start < label.length; start++) {
    if (label[start] !== 0 || !isInk(start)) continue;
    const id = boxes.length + 1;
    label[start] = id;
    stack.push(start);
    let [x0, y0, x1, y1] = [width, height, -1, -1];
    while (stack.length) {
      const i = stack.pop()!;
      const x = i % width;
      const y = (i - x) / width;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
      for (let dy = -1; dy <= 1; dy++)
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx;
          const yy = y + dy;
          if (xx < 0 || yy < 0 || xx >= width || yy >= height) continue;
          const j = yy * width + xx;
          if (label[j] === 0 && isInk(j)) {
            label[j] = id;
            stack.push(j);
          }
        }
    }
    boxes.push({ x0, y0, x1, y1 });
  }
  return { label, boxes };
}
