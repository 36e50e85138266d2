// A long file's pages are shared between the PDF workers; the document read is the same as one worker's.
import test from 'ava';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { closePdfPool, pdfPool, readPdfText, PAGES_PER_PARTIAL, SPLIT_ABOVE_BYTES } from '../../../pipelines/documents/pdf.ts';
import { buildBlocks, type PageText } from '../../../pipelines/documents/layout.ts';
import type { PdfTextResult } from '../../../pipelines/documents/pdf_worker.ts';

test.after.always(() => closePdfPool());

/** A text PDF of `pages` pages (one blank, which needs OCR), large enough to be shared between workers. */
async function longPdf(pages: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setCreationDate(new Date(0));
  doc.setModificationDate(new Date(0));
  const fonts = [await doc.embedFont(StandardFonts.Courier), await doc.embedFont(StandardFonts.Helvetica), await doc.embedFont(StandardFonts.TimesRoman)];
  for (let n = 1; n <= pages; n++) {
    const page = doc.addPage([612, 792]);
    if (n === 7) continue; // no text layer: this page needs OCR
    for (let l = 0; l < 60; l++)
      page.drawText(`Page ${n} line ${l}: Tenant shall maintain insurance in the amount of $${(n * 1000 + l).toLocaleString('en-US')}.`, {
        x: 40,
        y: 760 - l * 12,
        size: 9,
        font: fonts[(n + l) % 3],
      });
  }
  return doc.save({ useObjectStreams: false });
}

test('a long PDF read by two workers gives the same pages, in order, and the same pages needing OCR', async (t) => {
  const bytes = await longPdf(70);
  t.true(bytes.length >= SPLIT_ABOVE_BYTES, `the file is large enough to be shared (${bytes.length} bytes)`);
  const shared = await readPdfText(bytes, 300);
  // Locating pages only above 1,000 pages reads every page, in one worker.
  const single = await readPdfText(bytes, 300, 60_000, true, 1000);
  t.is(shared.pageCount, 70);
  t.deepEqual(
    shared.pages.map((p) => p.page),
    Array.from({ length: 70 }, (_, k) => k + 1),
  );
  t.deepEqual(shared.needOcr, [7]);
  t.deepEqual(shared.needOcr, single.needOcr);
  t.deepEqual(shared.pages, single.pages);
});

test('a long PDF over the page cap is refused the same way when shared', async (t) => {
  const bytes = await longPdf(70);
  const err = await t.throwsAsync(readPdfText(bytes, 60));
  t.regex(err.message, /70 pages; the limit is 60/);
});

test('a worker posts its pages in batches while it reads on, without blocks; the reader builds them from the lines', async (t) => {
  const bytes = await longPdf(30);
  const batches: PageText[][] = [];
  const copy = new Uint8Array(bytes);
  const reply = await pdfPool().run<PdfTextResult>(
    { op: 'text', bytes: copy, maxPages: 300, pagesPerPartial: PAGES_PER_PARTIAL },
    [copy.buffer as ArrayBuffer],
    60_000,
    (p) => batches.push((p as { pages: PageText[] }).pages),
  );
  t.is(batches.length, Math.floor(30 / PAGES_PER_PARTIAL));
  t.true(batches.every((b) => b.length === PAGES_PER_PARTIAL));
  const posted = [...batches.flat(), ...reply.pages];
  t.deepEqual(
    posted.map((p) => p.page),
    Array.from({ length: 30 }, (_, k) => k + 1),
  );
  t.true(posted.every((p) => p.blocks.length === 0));
  const read = await readPdfText(bytes, 300);
  t.deepEqual(
    read.pages.map((p) => p.page),
    Array.from({ length: 30 }, (_, k) => k + 1),
  );
  for (const p of read.pages) {
    if (p.page !== 7) t.true(p.blocks.length > 0, `page ${p.page} has blocks`);
    t.deepEqual(p.blocks, buildBlocks(p.lines));
  }
});
