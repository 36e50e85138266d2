// A 3×3 median of a gray image (one byte a pixel), pixel for pixel what sharp's `median(3)` gives (the edge
// rows and columns repeated), sixteen pixels at a time in WebAssembly SIMD. libvips's rank filter sorts each
// window: on a 300 dpi page (8 Mpx) that was about 0.27 s of CPU, the largest step of preparing a scan.
//
// Each output pixel is the median of its window's three columns, each column sorted once: the median of
// (the largest of the columns' lows, the median of their middles, the smallest of their highs). The module is
// assembled here from its instructions (below), so there is no binary to build or ship.

/** The instructions' opcodes used below (WebAssembly core and SIMD). */
const OP = {
  block: 0x02,
  loop: 0x03,
  end: 0x0b,
  br: 0x0c,
  brIf: 0x0d,
  localGet: 0x20,
  localSet: 0x21,
  localTee: 0x22,
  i32Const: 0x41,
  i32Eqz: 0x45,
  i32LtU: 0x49,
  i32Add: 0x6a,
  i32Mul: 0x6c,
  simd: 0xfd,
  v128Load: 0x00,
  v128Store: 0x0b,
  minU: 0x77,
  maxU: 0x79,
} as const;

const uleb = (n: number): number[] => {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
};
const bytesOf = (s: string) => [...Buffer.from(s, 'utf8')];
const name = (s: string) => [...uleb(bytesOf(s).length), ...bytesOf(s)];
const vec = (items: number[][]) => [...uleb(items.length), ...items.flat()];
const section = (id: number, body: number[]) => [id, ...uleb(body.length), ...body];

// Parameters and locals of the one function, by index.
const [SRC, DST, WIDTH, HEIGHT] = [0, 1, 2, 3];
const [Y, X, P0, P1, P2, Q, STRIDE] = [4, 5, 6, 7, 8, 9, 10];
const [TA, TB, TC] = [11, 12, 13];
const LO = [14, 15, 16];
const MID = [17, 18, 19];
const HI = [20, 21, 22];
const [A, B, C] = [23, 24, 25];

const get = (i: number) => [OP.localGet, i];
const set = (i: number) => [OP.localSet, i];
const tee = (i: number) => [OP.localTee, i];
const i32 = (n: number) => [OP.i32Const, ...uleb(n)]; // small constants only: under 64 the two encodings agree
const minOf = (...code: number[][]) => [...code.flat(), OP.simd, OP.minU];
const maxOf = (...code: number[][]) => [...code.flat(), OP.simd, OP.maxU];
const load = (ptr: number, offset: number) => [...get(ptr), OP.simd, OP.v128Load, 0, ...uleb(offset)];
const addTo = (i: number, n: number) => [...get(i), ...i32(n), OP.i32Add, ...set(i)];
/** A block or loop of no result around `code`. */
const block = (...code: number[][]) => [OP.block, 0x40, ...code.flat(), OP.end];
const loop = (...code: number[][]) => [OP.loop, 0x40, ...code.flat(), OP.end];

/** Column `c` of the window (0 left, 1 middle, 2 right): its three pixels sorted into LO, MID and HI. */
const sortColumn = (c: number) => [
  ...[load(P0, c), set(TA), load(P1, c), set(TB), load(P2, c), set(TC)].flat(),
  ...maxOf(get(TA), get(TB)), // the larger of the top two, kept on the stack for TB
  ...minOf(get(TA), get(TB)),
  ...set(TA),
  ...set(TB),
  ...minOf(get(TA), get(TC)),
  ...set(LO[c]),
  ...maxOf(get(TB), get(TC)),
  ...set(HI[c]),
  ...maxOf(get(TA), minOf(get(TB), get(TC))),
  ...set(MID[c]),
];

/** The median of three vectors (locals i, j, k): max(min(i, j), min(max(i, j), k)), left on the stack. */
const median3 = (i: number, j: number, k: number) => maxOf(minOf(get(i), get(j)), minOf(maxOf(get(i), get(j)), get(k)));

// median(src, dst, width, height): `src` is the image padded by one repeated pixel on every side (rows of
// width + 2), `dst` receives width × height pixels. Each row is written sixteen pixels at a time; the last
// store of a row runs into the next row, which is written after it.
const body = [
  ...[get(WIDTH), i32(2), [OP.i32Add], set(STRIDE)].flat(),
  ...block(
    loop(
      // while y < height
      [...get(Y), ...get(HEIGHT), OP.i32LtU, OP.i32Eqz, OP.brIf, 1],
      // P0, P1, P2: the window's three rows in `src`; Q: the output row
      [...get(SRC), ...get(Y), ...get(STRIDE), OP.i32Mul, OP.i32Add, ...tee(P0)],
      [...get(STRIDE), OP.i32Add, ...tee(P1), ...get(STRIDE), OP.i32Add, ...set(P2)],
      [...get(DST), ...get(Y), ...get(WIDTH), OP.i32Mul, OP.i32Add, ...set(Q)],
      [...i32(0), ...set(X)],
      loop(
        sortColumn(0),
        sortColumn(1),
        sortColumn(2),
        [...maxOf(maxOf(get(LO[0]), get(LO[1])), get(LO[2])), ...set(A)],
        [...minOf(minOf(get(HI[0]), get(HI[1])), get(HI[2])), ...set(C)],
        [...median3(MID[0], MID[1], MID[2]), ...set(B)],
        [...get(Q), ...median3(A, B, C), OP.simd, OP.v128Store, 0, 0],
        addTo(P0, 16),
        addTo(P1, 16),
        addTo(P2, 16),
        addTo(Q, 16),
        addTo(X, 16),
        // while x < width
        [...get(X), ...get(WIDTH), OP.i32LtU, OP.brIf, 0],
      ),
      addTo(Y, 1),
      [OP.br, 0],
    ),
  ),
  OP.end,
];

const I32 = 0x7f;
const V128 = 0x7b;
const code = [...vec([uleb(7).concat(I32), uleb(15).concat(V128)]), ...body];
const wasm = new Uint8Array([
  ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
  ...section(1, vec([[0x60, ...vec([[I32], [I32], [I32], [I32]]), 0]])),
  // The memory is imported (each call brings its own): "m" "mem", at least one page.
  ...section(2, vec([[...name('m'), ...name('mem'), 0x02, 0x00, 1]])),
  ...section(3, vec([[0]])),
  ...section(7, vec([[...name('median'), 0x00, 0]])),
  ...section(10, vec([[...uleb(code.length), ...code]])),
]);

let compiled: WebAssembly.Module | undefined;

/** Slack after each buffer: a row's last 16-pixel load or store may reach this far past its end. */
const SLACK = 64;
const PAGE = 65536;

/**
 * The 3×3 median of `px` (`width` × `height`, one byte a pixel), into a new array. Memory for the padded
 * image and the result is the call's own and is released with it.
 */
export function median3x3(px: Uint8Array, width: number, height: number): Uint8Array {
  if (px.length !== width * height) throw new Error(`median3x3: ${px.length} bytes for ${width}x${height}`);
  if (px.length === 0) return new Uint8Array(0);
  compiled ??= new WebAssembly.Module(wasm);
  const stride = width + 2;
  const padded = stride * (height + 2) + SLACK;
  const bytes = padded + width * height + SLACK;
  const memory = new WebAssembly.Memory({ initial: Math.ceil(bytes / PAGE) });
  const heap = new Uint8Array(memory.buffer);
  // The padded image: every row framed by its own first and last pixel, the first and last rows twice.
  for (let y = 0; y < height; y++) {
    const row = px.subarray(y * width, (y + 1) * width);
    const at = (y + 1) * stride;
    heap.set(row, at + 1);
    heap[at] = row[0];
    heap[at + width + 1] = row[width - 1];
  }
  heap.copyWithin(0, stride, 2 * stride);
  heap.copyWithin((height + 1) * stride, height * stride, (height + 1) * stride);
  const { median } = new WebAssembly.Instance(compiled, { m: { mem: memory } }).exports as {
    median: (src: number, dst: number, width: number, height: number) => void;
  };
  median(0, padded, width, height);
  return heap.slice(padded, padded + width * height);
}
