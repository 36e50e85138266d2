import test from 'ava';
import sharp from 'sharp';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { readDocument, readTextLayer, closeDocumentPools } from '../../../pipelines/documents/index.ts';
import { mergeOcrWords, trimLeader, looksLikeText, MIN_OCR_CONF } from '../../../pipelines/documents/missing_text.ts';
import { rawPdf, textPdf } from './helpers.ts';

test.after.always(() => closeDocumentPools());

/** `text` rendered black on white as a PNG, 4x the size it is drawn at (what a generator that pastes values as pictures makes). */
async function textPng(text: string, widthPt: number, heightPt: number): Promise<Uint8Array> {
  const w = widthPt * 4;
  const h = heightPt * 4;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><rect width="100%" height="100%" fill="#fff"/><text x="4" y="${h * 0.78}" font-family="DejaVu Sans, Arial, sans-serif" font-size="${h * 0.8}" fill="#000">${text}</text></svg>`;
  return new Uint8Array(await sharp(Buffer.from(svg)).png().toBuffer());
}

/** A declarations page whose labels are in the text layer and whose values are pictures of text. */
async function pageWithDrawnValues(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  const lines = ['HOMEOWNERS POLICY DECLARATIONS', 'Named Insured: Jane Roe', 'Mailing Address: 12 Elm Street, Springfield IL 62704'];
  lines.forEach((l, i) => page.drawText(l, { x: 50, y: 740 - i * 18, size: 11, font }));
  page.drawText('Policy Number:', { x: 50, y: 660, size: 11, font });
  page.drawText('Personal Liability Each Occurrence:', { x: 50, y: 636, size: 11, font });
  const values: [string, number][] = [
    ['HQ-7730418', 660],
    ['$ 482,600', 636],
  ];
  for (const [v, y] of values) {
    const png = await doc.embedPng(await textPng(v, 120, 14));
    page.drawImage(png, { x: 260, y: y - 3, width: 120, height: 14 });
  }
  return doc.save();
}

test('values drawn as images, not in the text layer, are found by OCR of that page and merged with its text', async (t) => {
  const pdf = await pageWithDrawnValues();
  const layer = await readTextLayer(pdf);
  t.deepEqual(layer.needOcr, [1]);
  t.deepEqual(layer.pages[0].repairs, ['missing_text']);
  t.false(layer.pages[0].text.includes('7730418'), 'the value is not in the text layer (the test sees the trap)');

  const d = await readDocument(pdf);
  const p = d.pages[0];
  t.is(d.method, 'mixed');
  t.deepEqual(p.repairs, ['missing_text']);
  t.true(p.ocrAssisted);
  t.regex(p.text, /HQ-?7730418/, p.text);
  t.regex(p.text, /482,600/, p.text);
  // Text-layer words are kept as typed (source text), OCR's only added beside them.
  const cells = p.lines.flatMap((l) => l.cells);
  t.true(
    cells.some((c) => c.source === 'text' && c.text.includes('Springfield IL 62704')),
    p.text,
  );
  t.true(cells.some((c) => c.source === 'ocr' && c.text.includes('7730418')));
});

test('values drawn as glyph masks (bitmap glyphs, no text) mark the page', async (t) => {
  // Eight word-sized stencil masks in a row beside a typed label, as Travelers draws its limits.
  const draws = Array.from({ length: 8 }, (_, k) => `q 40 0 0 9 ${200 + k * 46} 600 cm /M1 Do Q`).join('\n');
  const content = `BT /F1 11 Tf 50 600 Td (Coverage C Personal Property) Tj ET\n0 g\n${draws}\n`;
  const pdf = rawPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> /XObject << /M1 6 0 R >> >> >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    '<< /Type /XObject /Subtype /Image /ImageMask true /Width 8 /Height 2 /Filter /ASCIIHexDecode /Length 9 >>\nstream\n5AA55AA5>\nendstream',
  ]);
  const layer = await readTextLayer(pdf);
  t.deepEqual(layer.needOcr, [1]);
  t.deepEqual(layer.pages[0].repairs, ['missing_text']);
  // Without repairs the page is not looked at.
  const off = await readTextLayer(pdf, { repairTextLayer: false });
  t.deepEqual(off.needOcr, []);
});

test('a clean typed page, and one with a single logo image, are not sent to OCR', async (t) => {
  const clean = await textPdf([['DECLARATIONS', 'Policy Number HO-123456', 'Named Insured Jane Roe', 'Dwelling $ 321,000']]);
  const a = await readTextLayer(clean);
  t.deepEqual(a.needOcr, []);
  t.is(a.pages[0].repairs, undefined);

  const doc = await PDFDocument.load(clean);
  const logo = await doc.embedPng(await textPng('ACME MUTUAL', 150, 20));
  doc.getPage(0).drawImage(logo, { x: 400, y: 740, width: 150, height: 20 });
  const b = await readTextLayer(await doc.save());
  t.deepEqual(b.needOcr, []);
  t.is(b.pages[0].repairs, undefined);
});

/** A handwritten-looking signature: one joined, looping stroke across the strip (no separate glyphs). */
async function signaturePng(widthPt: number, heightPt: number): Promise<Uint8Array> {
  const w = widthPt * 4;
  const h = heightPt * 4;
  let d = `M 6 ${h * 0.6}`;
  for (let x = 6; x < w - 10; x += 18) d += ` C ${x + 6} ${h * 0.05}, ${x + 14} ${h * 0.05}, ${x + 9} ${h * 0.6} S ${x + 20} ${h * 0.95}, ${x + 18} ${h * 0.6}`;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><rect width="100%" height="100%" fill="#fff"/><path d="${d}" stroke="#123" stroke-width="4" fill="none"/></svg>`;
  return new Uint8Array(await sharp(Buffer.from(svg)).png().toBuffer());
}

/** A coloured banner: two solid blocks of colour, no glyphs. */
async function bannerPng(widthPt: number, heightPt: number): Promise<Uint8Array> {
  const w = widthPt * 4;
  const h = heightPt * 4;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><rect width="100%" height="100%" fill="#fb2"/><rect x="${w * 0.7}" width="${w * 0.3}" height="100%" fill="#889"/></svg>`;
  return new Uint8Array(await sharp(Buffer.from(svg)).png().toBuffer());
}

test('signatures and coloured bars drawn as images do not send a typed page to OCR; pictures of text still do', async (t) => {
  const clean = await textPdf([['DECLARATIONS', 'Policy Number HO-123456', 'Named Insured Jane Roe', 'Dwelling $ 321,000']]);
  const doc = await PDFDocument.load(clean);
  const page = doc.getPage(0);
  // Two officers' signatures side by side, a header banner and a footer bar: four strip images, none of them text.
  for (const x of [40, 310]) page.drawImage(await doc.embedPng(await signaturePng(140, 27)), { x, y: 300, width: 140, height: 27 });
  page.drawImage(await doc.embedPng(await bannerPng(540, 23)), { x: 36, y: 650, width: 540, height: 23 });
  page.drawImage(await doc.embedPng(await bannerPng(594, 17)), { x: 9, y: 10, width: 594, height: 17 });
  const signed = await doc.save();
  const a = await readTextLayer(signed);
  t.deepEqual(a.needOcr, []);
  t.is(a.pages[0].repairs, undefined);

  // The same page with two values pasted as pictures of text is still sent to OCR.
  const doc2 = await PDFDocument.load(signed);
  for (const [v, y] of [
    ['HQ-7730418', 500],
    ['$ 482,600', 470],
  ] as const)
    doc2.getPage(0).drawImage(await doc2.embedPng(await textPng(v, 120, 14)), { x: 260, y, width: 120, height: 14 });
  const b = await readTextLayer(await doc2.save());
  t.deepEqual(b.needOcr, [1]);
  t.deepEqual(b.pages[0].repairs, ['missing_text']);
});

test('looksLikeText tells a line of printed glyphs from a joined stroke, a bar and a frame', async (t) => {
  const pixels = async (png: Uint8Array) => {
    const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    return { width: info.width, height: info.height, kind: 2, data };
  };
  t.true(looksLikeText(await pixels(await textPng('Policy 4471-220', 110, 12))));
  t.true(looksLikeText(await pixels(await textPng('1,000,000', 60, 8))));
  t.false(looksLikeText(await pixels(await signaturePng(140, 27))));
  t.false(looksLikeText(await pixels(await bannerPng(540, 23))));
  // A drawn frame: a rectangle's outline, as wide as the image.
  const frame = `<svg xmlns="http://www.w3.org/2000/svg" width="800" height="60"><rect width="100%" height="100%" fill="#fff"/><rect x="4" y="8" width="790" height="60" rx="8" stroke="#e90" stroke-width="3" fill="none"/></svg>`;
  t.false(looksLikeText(await pixels(new Uint8Array(await sharp(Buffer.from(frame)).png().toBuffer()))));
  // 1-bit gray (pdf.js kind 1), rows padded to whole bytes: a blank strip is not text.
  t.false(looksLikeText({ width: 20, height: 6, kind: 1, data: new Uint8Array(18).fill(255) }));
});

test('merging keeps text-layer words and adds only OCR words where the layer has none', (t) => {
  const layer = [{ text: 'Policy Number:', x: 50, y: 100, w: 80, h: 10, source: 'text' as const }];
  const ocr = [
    { text: 'Policy', x: 51, y: 100, w: 30, h: 10, source: 'ocr' as const, conf: 0.95 },
    { text: 'HQ-7730418', x: 260, y: 100, w: 60, h: 10, source: 'ocr' as const, conf: 0.9 },
    { text: 'xx', x: 400, y: 100, w: 10, h: 10, source: 'ocr' as const, conf: 0.2 },
  ];
  const merged = mergeOcrWords(layer, ocr);
  t.deepEqual(
    merged.map((m) => m.text),
    ['Policy Number:', 'HQ-7730418'],
  );
  // A label with its dot leader keeps its letters; a low-confidence word without one stays out.
  const lead = trimLeader({ text: 'PROPERTY.....', x: 0, y: 0, w: 300, h: 7, source: 'ocr', conf: 0 });
  t.is(lead.text, 'PROPERTY');
  t.is(lead.conf, MIN_OCR_CONF);
  t.true(lead.w < 300);
  t.is(trimLeader({ text: 'Qx7#..', x: 0, y: 0, w: 30, h: 7, source: 'ocr', conf: 0.1 }).conf, 0.1);
  t.is(trimLeader({ text: 'USE.', x: 0, y: 0, w: 17, h: 7, source: 'ocr', conf: 0.47 }).text, 'USE');
  // A leader misread as letters is a point high: left out.
  t.is(trimLeader({ text: 'cin...', x: 0, y: 0, w: 109, h: 1.2, source: 'ocr', conf: 0.22 }).conf, 0.22);
  t.is(trimLeader({ text: 'Ce.', x: 0, y: 0, w: 20, h: 7, source: 'ocr', conf: 0.07 }).conf, 0.07);
});
