// A scanned page set in a fixed-pitch type (Courier): its word spaces are a whole character wide, and its lines'
// words must still come out as one cell each, as they do from a text layer.
import test from 'ava';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { readDocument, closeDocumentPools } from '../../../pipelines/documents/index.ts';
import { scanPdfRandom } from '../../../fixtures/scan.ts';

test.after.always(() => closeDocumentPools());

const lines = ['Northstar Electrical Contractors LLC', '45 Market St', 'Tulsa, OK 74103', 'Policy Period 07/12/2026 to 07/12/2027'];

for (const dpi of [200, 240])
  test(`a ${dpi} dpi scan of Courier 9: each line of an address block is one cell`, async (t) => {
    const doc = await PDFDocument.create();
    const page = doc.addPage([612, 792]);
    const font = await doc.embedFont(StandardFonts.Courier);
    lines.forEach((s, k) => page.drawText(s, { x: 50, y: 640 - k * 12, size: 9, font }));
    const scan = await scanPdfRandom(await doc.save(), { seed: 3, dpi, angle: -0.1, noise: 12, dust: 0, blur: 0, jpegQuality: 80 });
    const read = await readDocument(scan, {});
    const cells = read.pages[0].lines.map((l) => l.cells.map((c) => c.text));
    t.deepEqual(
      cells,
      lines.map((s) => [s]),
      JSON.stringify(cells),
    );
  });
