import test from 'ava';
import sharp from 'sharp';
import { normaliseImage, ocrImage, closeDocumentPools, grayPixels } from '../../../pipelines/documents/index.ts';
import { rereadStrip, applyReread, joinDigitGroups, linesFromTsv, REREAD_BELOW } from '../../../pipelines/documents/ocr.ts';
import type { TextItem } from '../../../pipelines/documents/layout.ts';

test.after.always(() => closeDocumentPools());

/**
 * A boxed coverage table at 300 dpi: three rows of policy number, effective and expiration date, with
 * 5-pixel column rules; each expiration date starts 3 pixels after the rule before it, as on a scanned
 * ACORD 25 where the engine reads the rule into the date ("|03/06/2023" at confidence 0).
 */
async function boxedDates(): Promise<Buffer> {
  const rows = [0, 1, 2].map((r) => {
    const y = 120 + r * 160;
    return `<line x1="100" y1="${y - 60}" x2="2450" y2="${y - 60}" stroke="#000" stroke-width="3"/>
  <text x="130" y="${y}" font-family="DejaVu Sans" font-size="34">COMMERCIAL GENERAL LIABILITY</text>
  <text x="1000" y="${y}" font-family="DejaVu Sans" font-size="38">K7${r}318</text>
  <text x="1400" y="${y}" font-family="DejaVu Sans" font-size="38">0${r + 2}/05/2022</text>
  <text x="1645" y="${y}" font-family="DejaVu Sans" font-size="38">0${r + 2}/0${r + 5}/2023</text>
  <text x="2000" y="${y}" font-family="DejaVu Sans" font-size="34">EACH OCCURRENCE</text>`;
  });
  const rules = [100, 950, 1380, 1640, 1900, 2450].map((x) => `<line x1="${x}" y1="40" x2="${x}" y2="600" stroke="#000" stroke-width="5"/>`).join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="2550" height="700"><rect width="100%" height="100%" fill="#fff"/>${rows.join('')}${rules}</svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

const expiry = ['02/05/2023', '03/06/2023', '04/07/2023'];

test('dates glued to a column rule are read again without the rule, and come back confident', async (t) => {
  const img = await normaliseImage(await boxedDates(), { pageWidthPt: 612 });
  const first = await ocrImage(img, { reread: false });
  const weak = first.words.filter((w) => /20\d\d/.test(w.text) && (w.conf ?? 0) < REREAD_BELOW);
  t.true(
    weak.length >= 1,
    `the first pass reads at least one date weakly (the test sees the trap): ${first.words.map((w) => `${w.text}~${w.conf?.toFixed(2)}`).join(' ')}`,
  );

  const r = await ocrImage(img);
  for (const d of expiry) {
    const w = r.words.find((x) => x.text === d);
    t.truthy(w, `${d} in ${r.words.map((x) => x.text).join(' ')}`);
    t.true((w?.conf ?? 0) >= 0.6, `${d} at ${w?.conf}`);
    // Still where the date is on the page (x 1645 px of 2550 = 395 pt).
    t.true(Math.abs((w?.x ?? 0) - 395) < 6, `${d} at x ${w?.x}`);
  }
  // Nothing is doubled: each date once.
  for (const d of expiry) t.is(r.words.filter((x) => x.text.includes(d)).length, 1);
});

test('the reread strip whitens the rule across a word and the neighbours reaching into its cut-out', (t) => {
  // 200 x 60 white image, 1 pt per pixel: a weak word at x 50..110, a rule at x 46, a neighbour at 114..150.
  const width = 200;
  const height = 60;
  const px = new Uint8Array(width * height).fill(255);
  const ink = (x0: number, y0: number, x1: number, y1: number) => {
    for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) px[y * width + x] = 0;
  };
  ink(46, 0, 48, 60); // the column rule, floor to ceiling
  for (let k = 0; k < 6; k++) ink(52 + k * 10, 22, 58 + k * 10, 36); // six glyph blocks of the weak word
  ink(114, 22, 150, 36); // the next word on the line
  const pgm = Buffer.concat([Buffer.from(`P5\n${width} ${height}\n255\n`, 'latin1'), Buffer.from(px)]);
  const img = { pgm, width, height, ptPerPx: 1 };
  const words: TextItem[] = [
    { text: '|02/05', x: 50, y: 20, w: 60, h: 18, source: 'ocr', conf: 0.05, line: 0 },
    { text: 'NEXT', x: 114, y: 20, w: 36, h: 18, source: 'ocr', conf: 0.95, line: 0 },
  ];
  const strip = rereadStrip(img, words);
  t.truthy(strip);
  t.is(strip!.slots.length, 1, 'only the weak word is cut out');
  const g = grayPixels(strip!);
  const slot = strip!.slots[0];
  // Page column x sits at strip column x - dx; row y at y - dy.
  const at = (x: number, y: number) => g[(y - slot.dy) * strip!.width + (x - slot.dx)];
  t.is(at(47, 30), 255, 'the rule is whitened');
  t.is(at(53, 30), 0, 'the glyphs stay');
  t.is(at(116, 30), 255, 'the neighbour is whitened');

  // The engine's words for the strip come back in place of the weak word, in page points.
  const lines = [words.map((w) => ({ ...w }))];
  const again: TextItem[] = [{ text: '02/05', x: 50 - slot.dx, y: 20 - slot.dy, w: 60, h: 18, source: 'ocr', conf: 0.93 }];
  t.is(applyReread(lines, strip!, again, 1), 1);
  t.deepEqual(
    lines[0].map((w) => [w.text, w.x, w.conf]),
    [
      ['02/05', 50, 0.93],
      ['NEXT', 114, 0.95],
    ],
  );
  // A reread no more confident than the first reading changes nothing.
  const lines2 = [words.map((w) => ({ ...w }))];
  t.is(applyReread(lines2, strip!, [{ ...again[0], text: '0Z/O5', conf: 0.4 }], 1), 0);
  t.is(lines2[0][0].text, '|02/05');
});

test('an amount read in pieces or without its commas becomes one word with commas, where that is unambiguous', (t) => {
  // Words of one engine line at the given x (points), 8 pt high, 5 pt per character.
  const line = (...specs: [string, number][]) => specs.map(([text, x]) => ({ text, x, y: 10, w: text.length * 5, h: 8, source: 'ocr' as const, conf: 0.8 }));
  const read = (...specs: [string, number][]) => joinDigitGroups(line(...specs)).map((w) => w.text);
  t.deepEqual(read(['1.000', 100], ['000', 128]), ['1,000,000']);
  t.deepEqual(read(['4', 100], ['000', 107], ['000;', 125]), ['4,000,000']);
  t.deepEqual(read(['$2', 100], ['000', 113], ['000', 131], ['Aggregate', 149]), ['$2,000,000', 'Aggregate']);
  t.deepEqual(read(['$300', 100], ['000', 123]), ['$300,000']);
  t.deepEqual(read(['1.000.000', 100]), ['1,000,000']);
  t.deepEqual(read(['1000', 100], ['000', 123]), ['1,000,000']);
  t.deepEqual(read(['5000', 100]), ['5000']);
  // The joined word spans its pieces and keeps the weakest confidence.
  const [w] = joinDigitGroups([...line(['7', 100], ['500', 107]), ...line(['000', 125]).map((x) => ({ ...x, conf: 0.4 }))]);
  t.deepEqual([w.text, w.x, w.w, w.conf], ['7,500,000', 100, 40, 0.4]);
  // Left alone: a phone number, two groups without "$" (a ZIP and a number, a table of counts), pieces a column apart.
  t.deepEqual(read(['555', 100], ['123', 118], ['4567', 136]), ['555', '123', '4567']);
  t.deepEqual(read(['500', 100], ['000', 118]), ['500', '000']);
  t.deepEqual(read(['1.000', 100], ['000', 200]), ['1.000', '000']);
});

test('OCR words get straight quotes: the engine chooses curly ones by the glyph, not the text', (t) => {
  const row = (n: number, text: string) => `5\t1\t1\t1\t1\t${n}\t${100 + n * 200}\t100\t180\t40\t91\t${text}`;
  const words = linesFromTsv([row(1, 'EMPLOYERS\u2019'), row(2, 'LIABILITY'), row(3, '\u201cAS'), row(4, 'IS\u201d')].join('\n'), 0.24).flat();
  t.deepEqual(
    words.map((w) => w.text),
    ["EMPLOYERS'", 'LIABILITY', '"AS', 'IS"'],
  );
});
