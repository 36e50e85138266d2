// Connected runs of ink (8-neighbours) by stretches of rows, against a plain flood fill over cells: the same
// numbering (by first cell, row by row), the same boxes, every cell's run the same.
import test from 'ava';
import { inkRuns, type InkRuns } from '../../../pipelines/documents/ink_runs.ts';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

/** The reference: a flood fill from each unlabelled ink cell, in row order. */
function flood(width: number, height: number, isInk: (i: number) => boolean): InkRuns {
  const label = new Int32Array(width * height);
  const boxes: InkRuns['boxes'] = [];
  for (let start = 0; start < label.length; start++) {
    if (label[start] !== 0 || !isInk(start)) continue;
    const id = boxes.length + 1;
    const box = { x0: width, y0: height, x1: -1, y1: -1 };
    label[start] = id;
    const stack = [start];
    while (stack.length) {
      const i = stack.pop()!;
      const [x, y] = [i % width, Math.floor(i / width)];
      [box.x0, box.y0, box.x1, box.y1] = [Math.min(box.x0, x), Math.min(box.y0, y), Math.max(box.x1, x), Math.max(box.y1, y)];
      for (let dy = -1; dy <= 1; dy++)
        for (let dx = -1; dx <= 1; dx++) {
          const [xx, yy] = [x + dx, y + dy];
          if (xx < 0 || yy < 0 || xx >= width || yy >= height) continue;
          const j = yy * width + xx;
          if (label[j] === 0 && isInk(j)) {
            label[j] = id;
            stack.push(j);
          }
        }
    }
    boxes.push(box);
  }
  return { label, boxes };
}

test('runs by stretches equal a flood fill: numbers, boxes and every cell', (t) => {
  const r = rng(20261129);
  for (let k = 0; k < 40; k++) {
    const width = 1 + Math.floor(r() * 60);
    const height = 1 + Math.floor(r() * 40);
    // Sparse specks to dense tangles (U shapes, diagonals and spirals arise at the denser end).
    const density = [0.05, 0.3, 0.5, 0.65][k % 4];
    const px = Uint8Array.from({ length: width * height }, () => (r() < density ? Math.floor(r() * 100) : 100 + Math.floor(r() * 156)));
    const want = flood(width, height, (i) => px[i] < 100);
    const got = inkRuns(width, height, px, 100);
    t.deepEqual(got.boxes, want.boxes, `raster ${k} (${width}×${height}, density ${density})`);
    t.deepEqual(got.label, want.label, `raster ${k}: labels`);
  }
});

test('a raster whose size does not match its cells is refused', (t) => {
  t.throws(() => inkRuns(3, 3, new Uint8Array(8), 128), { message: /8 cells for 3x3/ });
});

test('a run joined late keeps the number of its first cell: a U whose arms meet below, a diagonal chain', (t) => {
  // Two arms start as separate stretches in row 0 and meet in row 2; a third run starts between them in row 1.
  const rows = ['#...#', '#.#.#', '#####', '.....', '#....', '.#...', '..#..'];
  const width = rows[0].length;
  const px = Uint8Array.from(rows.join(''), (c) => (c === '#' ? 0 : 255));
  const got = inkRuns(width, rows.length, px, 128);
  t.deepEqual(got.boxes, [
    { x0: 0, y0: 0, x1: 4, y1: 2 },
    { x0: 0, y0: 4, x1: 2, y1: 6 },
  ]);
  t.is(got.label[2 * width + 2], 1);
  t.is(got.label[6 * width + 2], 2);
});
