import test from 'ava';
import zlib from 'node:zlib';
import fs from 'node:fs';
import { readDocument, closeDocumentPools, DocumentError } from '../../../pipelines/documents/index.ts';
import { contentHidesText, mayHideText } from '../../../pipelines/documents/invisible.ts';
import { rawPdf, fixture, fixturesDir } from './helpers.ts';

test.after.always(() => closeDocumentPools());

const VISIBLE = 'BT /F1 12 Tf 50 740 Td (Policy Number HO-123456 Named Insured Jane Roe) Tj ET\n';

/** A one-page PDF (Helvetica as /F1) whose content stream is `content`, Flate-compressed when `deflate`. */
function pagePdf(content: string, deflate = false): Uint8Array {
  const body = deflate ? zlib.deflateSync(Buffer.from(content, 'latin1')) : Buffer.from(content, 'latin1');
  const stream = `<< /Length ${body.length}${deflate ? ' /Filter /FlateDecode' : ''} >>\nstream\n${body.toString('latin1')}\nendstream`;
  return rawPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    stream,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
  ]);
}

const textOf = async (pdf: Uint8Array, repairTextLayer: boolean = true) => {
  const d = await readDocument(pdf, { ocr: false, repairTextLayer });
  return { text: d.pages.map((p) => p.text).join('\n'), repairs: d.pages[0].repairs ?? [] };
};

for (const deflate of [false, true]) {
  test(`white, invisible-mode and off-page text is never reported${deflate ? ' (compressed stream)' : ''}`, async (t) => {
    const pdf = pagePdf(
      VISIBLE +
        '1 1 1 rg BT /F1 12 Tf 50 700 Td (TRACKING 948529591 WHITEFONT) Tj ET\n' +
        '0 0 0 rg BT /F1 12 Tf 3 Tr 50 680 Td (HIDDENMODE 888888) Tj 0 Tr ET\n' +
        'BT /F1 12 Tf 700 600 Td (OFFPAGE 777777) Tj ET\n' +
        'BT /F1 1 Tf 2 780 Td (948529591 Q IC41768 INS DECPAGE E POLWHITEFONT) Tj ET\n' +
        'BT /F1 12 Tf 50 660 Td (Policy Period 01/01/2024 to 01/01/2025) Tj ET\n',
      deflate,
    );
    const r = await textOf(pdf);
    t.true(r.text.includes('HO-123456'));
    t.true(r.text.includes('Policy Period 01/01/2024'));
    t.false(r.text.includes('948529591'), r.text);
    t.false(r.text.includes('HIDDENMODE'), r.text);
    t.false(r.text.includes('OFFPAGE'), r.text);
    t.false(r.text.includes('POLWHITEFONT'), r.text);
    t.deepEqual(r.repairs, ['invisible_text']);
    // Without the repair all of it is read (the test sees the trap).
    const raw = await textOf(pdf, false);
    t.true(raw.text.includes('TRACKING 948529591') && raw.text.includes('HIDDENMODE') && raw.text.includes('POLWHITEFONT'), raw.text);
  });
}

test('white text on a dark bar is visible and kept; black text after white is kept', async (t) => {
  const pdf = pagePdf(
    VISIBLE +
      '0 0 0.5 rg 40 690 400 24 re f\n' +
      '1 1 1 rg BT /F1 12 Tf 50 697 Td (SECTION I PROPERTY COVERAGES) Tj ET\n' +
      '1 g BT /F1 12 Tf 50 600 Td (HIDDEN 12345) Tj ET\n' +
      '0 g BT /F1 12 Tf 50 580 Td (Dwelling 240,900) Tj ET\n',
  );
  const r = await textOf(pdf);
  t.true(r.text.includes('SECTION I PROPERTY COVERAGES'), r.text);
  t.true(r.text.includes('Dwelling 240,900'), r.text);
  t.false(r.text.includes('HIDDEN 12345'), r.text);
});

test('an OCR text layer (invisible mode over a page image) is kept', async (t) => {
  const pdf = pagePdf(
    'q 612 0 0 792 0 0 cm BI /W 2 /H 2 /CS /G /BPC 8 ID \x80\x90\xa0\xb0 EI Q\n' +
      'BT 3 Tr /F1 12 Tf 50 740 Td (Policy Number HO-123456 Named Insured Jane Roe) Tj ET\n',
  );
  const r = await textOf(pdf);
  t.true(r.text.includes('HO-123456'), r.text);
  t.deepEqual(r.repairs, []);
});

test('the exact check only runs for files whose streams show white or invisible text', (t) => {
  t.true(contentHidesText('BT /F1 9 Tf 1 1 1 rg (x) Tj ET'));
  t.true(contentHidesText('1 g BT /F1 9 Tf (x) Tj ET'));
  t.true(contentHidesText('BT 3 Tr (x) Tj ET'));
  t.true(contentHidesText('0 0 0 0 k BT (x) Tj ET'));
  // White used only for shapes, or restored before the text: no.
  t.false(contentHidesText('q 1 1 1 rg 0 0 612 792 re f Q BT /F1 9 Tf (x) Tj ET'));
  t.false(contentHidesText('1 g 0 0 10 10 re f 0 g BT (x) Tj ET'));
  t.false(contentHidesText('BT 0.2 0.2 0.2 rg (x) Tj ET'));
  // The generated fixtures are clean: no operator list is read for them.
  for (const f of fs.readdirSync(fixturesDir).filter((n) => n.endsWith('.pdf'))) t.false(mayHideText(fixture(f)), f);
  t.true(mayHideText(pagePdf(VISIBLE + '1 1 1 rg BT /F1 9 Tf (x) Tj ET', true)));
});

test('a truncated compressed content stream: zlib fails, pdf.js decodes it itself and refuses it as corrupt, as before', async (t) => {
  const lines = Array.from({ length: 40 }, (_, i) => `BT /F1 10 Tf 50 ${760 - i * 18} Td (Line ${i} Policy Number HO-${100000 + i}) Tj ET`).join('\n');
  const full = zlib.deflateSync(Buffer.from(lines, 'latin1'));
  const cut = full.subarray(0, Math.floor(full.length * 0.6));
  const stream = `<< /Length ${cut.length} /Filter /FlateDecode >>\nstream\n${cut.toString('latin1')}\nendstream`;
  const pdf = rawPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    stream,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
  ]);
  const e = await readDocument(pdf, { ocr: false }).then(
    () => undefined,
    (err: unknown) => err as DocumentError,
  );
  t.true(e instanceof DocumentError);
  t.like(e, { code: 'extraction_failed', reason: 'corrupt' });
  t.regex(e!.details ?? '', /flate/i);
  // The whole stream reads.
  const ok = rawPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${full.length} /Filter /FlateDecode >>\nstream\n${full.toString('latin1')}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
  ]);
  t.true((await textOf(ok)).text.includes('Line 39 Policy Number HO-100039'));
});
