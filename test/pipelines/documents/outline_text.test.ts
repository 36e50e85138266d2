// Text drawn as vector outlines (each glyph a filled path; no text operator, no image), as a "convert text to
// outlines" export or a print driver leaves it: the page is rendered and OCR'd.
import test from 'ava';
import { PDFDocument, StandardFonts, rgb } from 'pdf-lib';
import { readDocument, readTextLayer, closeDocumentPools } from '../../../pipelines/documents/index.ts';
import { drawOutlinedText, liberationSans } from '../../../fixtures/outline_text.ts';

test.after.always(() => closeDocumentPools());

const LINES = [
  'CERTIFICATE OF INSURANCE',
  'Insured: Blue Fin Cafe Inc',
  'Insurer: Granite Peak Casualty Company',
  'Policy Number: GL 4471209',
  'General Aggregate $2,000,000',
];

/** A page of outlined text; `footer` adds a typed line (a sparse text layer); `perGlyph` paints each glyph on its own. */
async function outlinedPage(o: { footer: boolean; objectStreams: boolean }): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([612, 792]);
  const font = liberationSans();
  LINES.forEach((l, i) => {
    if (i % 2 === 0) drawOutlinedText(page, font, l, 50, 740 - i * 22, 11);
    else {
      // Glyph by glyph, one fill each (the other way exporters write outlines).
      let x = 50;
      for (const ch of l) x += drawOutlinedText(page, font, ch, x, 740 - i * 22, 11);
    }
  });
  if (o.footer) {
    const h = await doc.embedFont(StandardFonts.Helvetica);
    page.drawText('Form CI-100 (01/25)  Page 1 of 1  issued as a matter of information only', { x: 50, y: 40, size: 8, font: h });
  }
  return doc.save({ useObjectStreams: o.objectStreams });
}

test('a page of outlined text under a typed footer is sent to OCR and read (hybrid)', async (t) => {
  for (const objectStreams of [false, true]) {
    const pdf = await outlinedPage({ footer: true, objectStreams });
    const layer = await readTextLayer(pdf);
    t.false(layer.pages[0].text.includes('4471209'), 'the value is not in the text layer (the test sees the trap)');
    t.deepEqual(layer.needOcr, [1], `object streams ${objectStreams}`);
    t.deepEqual(layer.pages[0].repairs, ['missing_text']);
    const d = await readDocument(pdf);
    t.is(d.method, 'mixed');
    const p = d.pages[0];
    t.true(p.ocrAssisted);
    t.regex(p.text, /GL 4471209/, p.text);
    t.regex(p.text, /Granite Peak Casualty Company/, p.text);
    t.regex(p.text, /2,000,000/, p.text);
    t.regex(p.text, /Form CI-100/, p.text);
  }
});

test('a page of outlined text with no text layer at all is OCR d', async (t) => {
  const pdf = await outlinedPage({ footer: false, objectStreams: false });
  const d = await readDocument(pdf);
  t.is(d.method, 'ocr');
  t.regex(d.pages[0].text, /Blue Fin Cafe Inc/, d.pages[0].text);
});

test('a typed page with drawn boxes, rules and a small outlined logo is not sent to OCR', async (t) => {
  const doc = await PDFDocument.create();
  const page = doc.addPage([612, 792]);
  const h = await doc.embedFont(StandardFonts.Helvetica);
  // A logo of a few outlined letters, tick boxes and shaded cells drawn as filled paths.
  drawOutlinedText(page, liberationSans(), 'ACME', 50, 750, 18);
  for (let k = 0; k < 40; k++) page.drawRectangle({ x: 50 + (k % 10) * 50, y: 600 - Math.floor(k / 10) * 20, width: 8, height: 8, color: rgb(0, 0, 0) });
  page.drawRectangle({ x: 40, y: 400, width: 530, height: 14, color: rgb(0.85, 0.85, 0.85) });
  ['Named Insured: Jane Roe', 'Policy Number: HQ-7730418', 'Coverage A Dwelling $ 482,600'].forEach((l, i) =>
    page.drawText(l, { x: 50, y: 700 - i * 18, size: 11, font: h }),
  );
  const layer = await readTextLayer(await doc.save());
  t.deepEqual(layer.needOcr, []);
  t.is(layer.pages[0].repairs, undefined);
});
