import test from 'ava';
import { apiErrorBody, fromDocumentError } from '../../../http/errors.ts';
import { readDocument, closeDocumentPools, DocumentError } from '../../../pipelines/documents/index.ts';
import { extractDocument } from '../../../pipelines/extraction/index.ts';
import { fixture, textPdf, encryptedPdf, rawPdf } from './helpers.ts';

test.after.always(() => closeDocumentPools());

const failure = async (p: Promise<unknown>) => {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(e instanceof DocumentError)) throw new Error(`expected a DocumentError, got ${String(e)}`);
  return e;
};

test('text PDF: lines in reading order with positions, read without OCR', async (t) => {
  const d = await readDocument(fixture('auto_acme_mutual.pdf'), { ocr: false });
  t.is(d.status, 'success');
  t.is(d.method, 'text');
  t.is(d.pageCount, 1);
  const p = d.pages[0];
  t.is(p.source, 'text');
  t.is(p.width, 612);
  const first = p.lines[0];
  t.is(first.text, 'Acme Mutual Insurance Company');
  t.true(first.y < 60 && first.x >= 49 && first.x <= 51);
  // Reading order: top to bottom.
  for (let i = 1; i < p.lines.length; i++) t.true(p.lines[i].y >= p.lines[i - 1].y - 1);
  const header = p.lines.find((l) => l.text.startsWith('Coverage'))!;
  t.deepEqual(
    header.cells.map((c) => c.text),
    ['Coverage', 'Limit of Liability', 'Deductible', 'Premium'],
  );
  t.true(p.blocks.length > 3);
});

test('AcroForm: filled field values are read with their names and positions', async (t) => {
  const d = await readDocument(fixture('coi_acroform_gamma.pdf'), { ocr: false });
  const p = d.pages[0];
  t.true(p.fields.length > 10);
  const insurer = p.fields.find((f) => f.name.startsWith('Insurer_FullName_A'));
  t.is(insurer?.value, 'Puget Sound Insurance Company');
  // Field values also appear in the positioned text, on the row of their printed label.
  const row = p.lines.find((l) => l.text.includes('INSURER A'));
  t.true(row?.text.includes('Puget Sound Insurance Company'));
  t.true(row?.cells.some((c) => c.source === 'acroform'));
});

test('a truncated PDF is extraction_failed with details', async (t) => {
  const bytes = fixture('auto_acme_mutual.pdf');
  const e = await failure(readDocument(bytes.subarray(0, 600), { ocr: false }));
  t.is(e.code, 'extraction_failed');
  t.is(fromDocumentError(e).status, 422);
  t.truthy(e.details);
});

test('garbage after a PDF header is extraction_failed', async (t) => {
  const junk = new TextEncoder().encode(`%PDF-1.7\n${'garbage '.repeat(200)}`);
  const e = await failure(readDocument(junk, { ocr: false }));
  t.is(e.code, 'extraction_failed');
});

test('an encrypted PDF is extraction_failed (encrypted) with details', async (t) => {
  const e = await failure(readDocument(encryptedPdf(), { ocr: false }));
  t.is(e.code, 'extraction_failed');
  t.is(e.reason, 'encrypted');
  t.regex(e.details ?? '', /password/);
  t.deepEqual(Object.keys(apiErrorBody(fromDocumentError(e)) as object).sort(), ['details', 'error', 'message']);
});

test('a PDF over the page cap is extraction_failed (too_many_pages)', async (t) => {
  const pdf = await textPdf([['one'], ['two'], ['three']]);
  const e = await failure(readDocument(pdf, { ocr: false, maxPages: 2 }));
  t.is(e.code, 'extraction_failed');
  t.is(e.reason, 'too_many_pages');
  const ok = await readDocument(pdf, { ocr: false, maxPages: 3 });
  t.is(ok.pageCount, 3);
});

test('an image-only PDF with OCR off has no text: extraction_failed from the engine', async (t) => {
  const blank = rawPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>',
  ]);
  const d = await readDocument(blank, { ocr: false });
  t.is(d.status, 'failure');
  const e = await failure(extractDocument(blank, { read: { ocr: false } }));
  t.is(e.code, 'extraction_failed');
  t.is(e.reason, 'no_text');
});

test('many documents in parallel share the pool and all succeed', async (t) => {
  const names = ['auto_pinecrest.pdf', 'home_granite.pdf', 'bop_summit.pdf', 'coi_beta.pdf', 'flood_gulf.pdf', 'cyber_sentinel.pdf'];
  const results = await Promise.all(names.map((n) => readDocument(fixture(n), { ocr: false })));
  t.true(results.every((r) => r.status === 'success' && r.pages[0].lines.length > 5));
});

test('blocks follow columns: a two-column page reads the left column before the right', async (t) => {
  const { PDFDocument, StandardFonts } = await import('pdf-lib');
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  ['Left one', 'Left two', 'Left three'].forEach((s, i) => page.drawText(s, { x: 50, y: 700 - i * 14, size: 11, font }));
  ['Right one', 'Right two', 'Right three'].forEach((s, i) => page.drawText(s, { x: 350, y: 700 - i * 14, size: 11, font }));
  page.drawText('Footer across the page', { x: 50, y: 400, size: 11, font });
  const d = await readDocument(await doc.save(), { ocr: false });
  t.deepEqual(
    d.pages[0].blocks.map((b) => b.text),
    ['Left one\nLeft two\nLeft three', 'Right one\nRight two\nRight three', 'Footer across the page'],
  );
  // Lines stay page-wide rows (label/value pairs read across).
  t.is(d.pages[0].lines[0].text, 'Left one  Right one');
});

test('text drawn as ligatures and compatibility characters reads as plain letters (Unicode normalised)', async (t) => {
  // Helvetica whose ToUnicode maps "F" to the fi ligature (U+FB01) and "S" to a no-break space.
  const cmap = [
    '/CIDInit /ProcSet findresource begin 12 dict begin begincmap',
    '/CMapName /Adobe-Identity-UCS def /CMapType 2 def',
    '1 begincodespacerange <00> <FF> endcodespacerange',
    '2 beginbfchar <46> <FB01> <53> <00A0> endbfchar',
    'endcmap CMapName currentdict /CMap defineresource pop end end',
  ].join('\n');
  const content = 'BT /F1 14 Tf 72 700 Td (CertiFcate) Tj ET BT /F1 14 Tf 72 660 Td (FreSproof FFle) Tj ET';
  const d = await readDocument(
    rawPdf([
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
      '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding /ToUnicode 6 0 R >>',
      `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
      `<< /Length ${cmap.length} >>\nstream\n${cmap}\nendstream`,
    ]),
    { ocr: false },
  );
  const text = d.pages[0].lines.map((l) => l.text);
  t.deepEqual(text, ['Certificate', 'fire proof fifile']);
  t.false(/[\ufb01\u00a0]/.test(d.pages[0].text));
});
