// The cost bound of one document: a flate stream (or all of them together) that decompresses past the limits is
// refused before pdf.js reads the file, and the document fails with extraction_failed / decompression_bomb.
import fs from 'node:fs';
import zlib from 'node:zlib';
import test from 'ava';
import { checkDecodedSize, DecodeLimitError, MAX_STREAM_DECODED_BYTES } from '../../../pipelines/documents/decoded.ts';
import { DocumentError } from '../../../pipelines/documents/errors.ts';
import { closePdfPool, readPdfText } from '../../../pipelines/documents/pdf.ts';
import { fixture, fixturesDir, rawPdf, textPdf } from './helpers.ts';

test.after.always(closePdfPool);

/** A one-page PDF whose content streams are these deflated bytes. */
function pdfWithStreams(streams: Buffer[]): Uint8Array {
  const contents = streams.map((_, i) => `${4 + i} 0 R`).join(' ');
  return rawPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents [${contents}] >>`,
    ...streams.map((s) => `<< /Length ${s.length} /Filter /FlateDecode >>\nstream\n${s.toString('latin1')}\nendstream`),
  ]);
}

const spaces = (n: number) => zlib.deflateSync(Buffer.alloc(n, 0x20), { level: 9 });

test('a flate stream decompressing past the stream limit is refused, even truncated', (t) => {
  const bomb = spaces(MAX_STREAM_DECODED_BYTES + 16 * 1024 * 1024);
  t.true(bomb.length < 200_000, `a small file: ${bomb.length} bytes`);
  const err = t.throws(() => checkDecodedSize(pdfWithStreams([bomb])), { instanceOf: DecodeLimitError });
  t.is(err?.reason, 'decompression_bomb');
  t.regex(err?.details ?? '', /a stream decompresses to more than 64 MiB/);
  // Without its end (no checksum), as pdf.js would still inflate it.
  t.throws(() => checkDecodedSize(pdfWithStreams([bomb.subarray(0, bomb.length - 100)])), { instanceOf: DecodeLimitError });
});

test('streams each under the stream limit are refused together past the document limit', (t) => {
  const limits = { streamBytes: 1_000_000, documentBytes: 2_500_000 };
  const part = spaces(900_000);
  t.notThrows(() => checkDecodedSize(pdfWithStreams([part, part]), limits));
  const err = t.throws(() => checkDecodedSize(pdfWithStreams([part, part, part]), limits), { instanceOf: DecodeLimitError });
  t.regex(err?.details ?? '', /together/);
});

test('ordinary documents pass: every fixture and a generated text PDF', async (t) => {
  const pdfs = fs.readdirSync(fixturesDir).filter((f) => f.endsWith('.pdf'));
  t.true(pdfs.length > 0);
  for (const name of pdfs) t.notThrows(() => checkDecodedSize(fixture(name)), name);
  const generated = await textPdf([['Policy number ABC-123']]);
  t.notThrows(() => checkDecodedSize(generated));
});

test('reading a bomb fails the document with extraction_failed / decompression_bomb before pdf.js inflates it', async (t) => {
  const bomb = pdfWithStreams([spaces(200 * 1024 * 1024)]);
  const err = await t.throwsAsync(readPdfText(bomb, 50), { instanceOf: DocumentError });
  t.is(err?.code, 'extraction_failed');
  t.is(err?.reason, 'decompression_bomb');
  // The pool still reads an ordinary document afterwards.
  const ok = await readPdfText(await textPdf([['Policy number ABC-123']]), 50);
  t.is(ok.pageCount, 1);
});
