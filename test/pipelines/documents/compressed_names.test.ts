// What a file's dictionaries hold, looked for inside its compressed object streams too: a document whose
// dictionaries show no images, Type3 fonts or annotations is not asked for each page's operator list or form
// fields, and one that hides them in an object stream still is. And pdf.js's text read through this project's
// ports (pdf_port.ts) is the text pdf.js reads through its own.
import zlib from 'node:zlib';
import test from 'ava';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { mayContainName } from '../../../pipelines/documents/decoded.ts';
import { mayDrawText } from '../../../pipelines/documents/missing_text.ts';
import { closePdfPool, readPdfText } from '../../../pipelines/documents/pdf.ts';
import { rawPdf } from './helpers.ts';

test.after.always(closePdfPool);

/** A one-page PDF whose page dictionary (and what it names) sits in a deflated object stream. */
function objectStreamPdf(pageDict: string, extraObjects: string[] = [], opts: { corrupt?: boolean; encrypt?: boolean } = {}): Uint8Array {
  const inside = [pageDict, ...extraObjects];
  let offsets = '';
  let body = '';
  inside.forEach((o, k) => {
    offsets += `${3 + k} ${body.length} `;
    body += `${o}\n`;
  });
  const data = Buffer.from(offsets + body, 'latin1');
  // Corrupt: bytes that are not a deflate stream.
  const stream = opts.corrupt ? Buffer.from([0xff, 0xfe, 0xfd, 0xfc, 0x00, 0x01]) : zlib.deflateSync(data);
  return rawPdf(
    [
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      `<< /Type /ObjStm /N ${inside.length} /First ${offsets.length} /Length ${stream.length} /Filter /FlateDecode >>\nstream\n${stream.toString('latin1')}\nendstream`,
    ],
    opts.encrypt ? '/Encrypt << /Filter /Standard >>' : '',
  );
}

const plainPage = '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>';

test('a name inside a compressed object stream is found; a file without it is told apart', (t) => {
  t.false(mayContainName(objectStreamPdf(plainPage), ['/Annots']));
  t.true(mayContainName(objectStreamPdf('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Annots [9 0 R] >>'), ['/Annots']));
  t.true(mayDrawText(objectStreamPdf(plainPage, ['<< /Type /Font /Subtype /Type3 /FontMatrix [0.001 0 0 0.001 0 0] >>'])));
  t.false(mayDrawText(objectStreamPdf(plainPage, ['<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'])));
});

test('when an object stream cannot be read (encrypted, or it will not decode) the name may be there', (t) => {
  t.true(mayContainName(objectStreamPdf(plainPage, [], { encrypt: true }), ['/Annots']));
  t.true(mayContainName(objectStreamPdf(plainPage, [], { corrupt: true }), ['/Annots']));
});

test('a form field in a pdf-lib file (whose objects are compressed) is still read', async (t) => {
  const doc = await PDFDocument.create();
  const page = doc.addPage([612, 792]);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  page.drawText('Named insured:', { x: 40, y: 700, size: 11, font });
  const field = doc.getForm().createTextField('insured');
  field.setText('Quill Robotics, Inc.');
  field.addToPage(page, { x: 140, y: 692, width: 200, height: 20 });
  const bytes = await doc.save({ useObjectStreams: true });
  t.false(Buffer.from(bytes).includes('/Annots'), 'the annotations are only inside an object stream');
  const read = await readPdfText(bytes, 50);
  t.true(read.pages[0].lines.some((l) => l.text.includes('Quill Robotics, Inc.')));
});

test('a page of many text runs reads the same through these ports as through pdf.js’s own', async (t) => {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Courier);
  const page = doc.addPage([612, 792]);
  const lines = Array.from({ length: 70 }, (_, i) => `${i + 1}. Tenant shall keep the Premises in good order, line ${i + 1}.`);
  lines.forEach((l, i) => page.drawText(l, { x: 40, y: 760 - i * 10.6, size: 9, font }));
  const bytes = await doc.save();
  const { getDocument } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const own = await getDocument({ data: bytes.slice(), isEvalSupported: false, verbosity: 0 }).promise;
  const content = await (await own.getPage(1)).getTextContent();
  await own.destroy();
  const theirs = content.items.map((i) => ('str' in i ? i.str : '')).join('');
  const read = await readPdfText(bytes, 50);
  t.is(read.pages[0].lines.length, 70);
  t.is(read.pages[0].lines.map((l) => l.text.replace(/\s+/g, '')).join(''), theirs.replace(/\s+/g, ''));
});

test('a port delivers a message of primitives as a copy, and refuses what a clone refuses', async (t) => {
  const { portPair } = await import('../../../pipelines/documents/pdf_port.ts');
  const [a, b] = portPair();
  const got: unknown[] = [];
  b.addEventListener('message', (e) => got.push(e.data));
  const pull = { sourceName: 'worker', targetName: 'main', stream: 6, streamId: 3, desiredSize: 100, success: true, reason: null };
  const nested = { action: 'GetPage', data: { pageIndex: 2 } };
  a.postMessage(pull);
  a.postMessage(nested);
  t.throws(() => a.postMessage({ action: 'x', callback: () => 1 }), { name: 'DataCloneError' });
  await new Promise((r) => setTimeout(r, 0));
  t.deepEqual(got, [pull, nested]);
  t.not(got[0], pull, 'a copy, not the sender’s object');
  t.not((got[1] as typeof nested).data, nested.data);
});
