// The cost bound of one document: a flate stream (or all of them together) that decompresses past the limits is
// refused before pdf.js reads the file, and the document fails with extraction_failed / decompression_bomb.
import fs from 'node:fs';
import zlib from 'node:zlib';
import test from 'ava';
import {
  checkDecodedSize,
  DecodeLimitError,
  MAX_CONTENT_DECODED_BYTES,
  MAX_CONTENT_STREAM_DECODED_BYTES,
  MAX_STREAM_DECODED_BYTES,
} from '../../../pipelines/documents/decoded.ts';
import { DocumentError } from '../../../pipelines/documents/errors.ts';
import { closePdfPool, readPdfText } from '../../../pipelines/documents/pdf.ts';
import { fixture, fixturesDir, rawPdf, textPdf } from './helpers.ts';

test.after.always(closePdfPool);

/** A one-page PDF whose content streams are these deflated bytes. */
const pdfWithStreams = (streams: Buffer[]): Uint8Array => pdfWithPages([streams]);

/** A PDF of `pages.length` pages, each page's content streams these deflated bytes. */
function pdfWithPages(pages: Buffer[][]): Uint8Array {
  const first = 3 + pages.length; // objects 1 and 2 are the catalog and the page tree, then the pages
  const numbers = pages.reduce<number[][]>((out, p) => [...out, p.map((_, i) => first + out.flat().length + i)], []);
  return rawPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${pages.map((_, k) => `${3 + k} 0 R`).join(' ')}] /Count ${pages.length} >>`,
    ...numbers.map((ns) => `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents [${ns.map((n) => `${n} 0 R`).join(' ')}] >>`),
    ...pages.flat().map((s) => `<< /Length ${s.length} /Filter /FlateDecode >>\nstream\n${s.toString('latin1')}\nendstream`),
  ]);
}

/** A one-page PDF that draws one gray image XObject whose pixels are these deflated bytes (`width` pixels a row). */
function pdfWithImage(pixels: Buffer, width: number, height: number): Uint8Array {
  return rawPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Im1 5 0 R >> >> /Contents 4 0 R >>',
    '<< /Length 28 >>\nstream\nq 612 0 0 792 0 0 cm /Im1 Do Q\nendstream',
    `<< /Type /XObject /Subtype /Image /Width ${width} /Height ${height} /ColorSpace /DeviceGray /BitsPerComponent 8 /Length ${pixels.length} /Filter /FlateDecode >>\nstream\n${pixels.toString('latin1')}\nendstream`,
  ]);
}

const spaces = (n: number) => zlib.deflateSync(Buffer.alloc(n, 0x20), { level: 9 });

test('a flate stream decompressing past the stream limit is refused, even truncated', (t) => {
  const bomb = spaces(MAX_STREAM_DECODED_BYTES + 16 * 1024 * 1024);
  t.true(bomb.length < 200_000, `a small file: ${bomb.length} bytes`);
  const err = t.throws(() => checkDecodedSize(pdfWithStreams([bomb])), { instanceOf: DecodeLimitError });
  t.is(err?.reason, 'decompression_bomb');
  t.regex(err?.details ?? '', /a stream decompresses to more than 16 MiB/);
  // Without its end (no checksum), as pdf.js would still inflate it.
  t.throws(() => checkDecodedSize(pdfWithStreams([bomb.subarray(0, bomb.length - 100)])), { instanceOf: DecodeLimitError });
  // An image has the larger limit, and past it is refused too.
  const image = t.throws(() => checkDecodedSize(pdfWithImage(bomb, 8192, 10240)), { instanceOf: DecodeLimitError });
  t.regex(image?.details ?? '', /an image decompresses to more than 64 MiB/);
});

test('page content is held whole by pdf.js, so it has tighter limits than an image: a flate scan of 24 MiB passes', (t) => {
  t.is(MAX_CONTENT_STREAM_DECODED_BYTES, 16 * 1024 * 1024);
  // A 300 dpi gray scan of a Letter page, flate-encoded: 2550 × 3300 bytes each, well over the content limit.
  const scan = zlib.deflateSync(Buffer.alloc(2550 * 3300 * 3, 0xff));
  t.notThrows(() => checkDecodedSize(pdfWithImage(scan, 2550, 3300 * 3)));
  t.throws(() => checkDecodedSize(pdfWithStreams([scan])), { instanceOf: DecodeLimitError });
  // Content streams each under their limit, one a page, are refused together past the document's content limit:
  // nine of 15 MiB are 135 MiB.
  const part = spaces(15 * 1024 * 1024);
  t.notThrows(() => checkDecodedSize(pdfWithPages(Array(8).fill([part]))));
  const err = t.throws(() => checkDecodedSize(pdfWithPages(Array(9).fill([part]))), { instanceOf: DecodeLimitError });
  t.true(9 * 15 * 1024 * 1024 > MAX_CONTENT_DECODED_BYTES);
  t.regex(err?.details ?? '', /not images decompress to more than 128 MiB together/);
});

test("a page's content streams are one stream to pdf.js (it joins them): together they have the limit of one", (t) => {
  const eight = spaces(8 * 1024 * 1024);
  // Two 8 MiB streams on one page pass (16 MiB); three do not, though each is a third of the limit.
  t.notThrows(() => checkDecodedSize(pdfWithStreams([eight, eight])));
  const err = t.throws(() => checkDecodedSize(pdfWithStreams([eight, eight, eight])), { instanceOf: DecodeLimitError });
  t.regex(err?.details ?? '', /a page's content streams decompress to more than 16 MiB together/);
  // The same three streams on three pages are three pages' content: they pass.
  t.notThrows(() => checkDecodedSize(pdfWithPages([[eight], [eight], [eight]])));
  // The bench's burst bomb: fifteen 8 MiB streams on one page (120 MiB, under the document's content limit).
  t.throws(() => checkDecodedSize(pdfWithStreams(Array(15).fill(eight))), { instanceOf: DecodeLimitError });
});

test('a content stream dressed as an image is still page content: a page naming it in /Contents gets the content limits', (t) => {
  // Twelve 15 MiB streams whose dictionaries say /Subtype /Image, drawn as the page's content (directly, and through
  // a referenced array): pdf.js would join and parse them all, 180 MiB, past the content limit.
  const part = spaces(15 * 1024 * 1024);
  // `contents(first)`: the page (object 3) and what it names, `first` the number of the object after the page.
  const dressed = (n: number, contents: (first: number) => string[]) =>
    rawPdf([
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      ...contents(4),
      ...Array.from(
        { length: n },
        () =>
          `<< /Type /XObject /Subtype /Image /Width 4096 /Height 3840 /ColorSpace /DeviceGray /BitsPerComponent 8 /Length ${part.length} /Filter /FlateDecode >>\nstream\n${part.toString('latin1')}\nendstream`,
      ),
    ]);
  const refs = (from: number, n: number) => Array.from({ length: n }, (_, k) => `${from + k} 0 R`).join(' ');
  const direct = dressed(12, (first) => [`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents [${refs(first, 12)}] >>`]);
  const err = t.throws(() => checkDecodedSize(direct), { instanceOf: DecodeLimitError });
  t.regex(err?.details ?? '', /not images decompress to more than 128 MiB together/);
  const viaArray = dressed(12, (first) => [`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${first} 0 R >>`, `[${refs(first + 1, 12)}]`]);
  t.throws(() => checkDecodedSize(viaArray), { instanceOf: DecodeLimitError });
  // The same streams as the page's images (named in its resources, drawn with Do) are images: they pass.
  const images = rawPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << ${Array.from({ length: 12 }, (_, k) => `/Im${k} ${5 + k} 0 R`).join(' ')} >> >> /Contents 4 0 R >>`,
    '<< /Length 28 >>\nstream\nq 612 0 0 792 0 0 cm /Im0 Do Q\nendstream',
    ...Array.from(
      { length: 12 },
      () =>
        `<< /Type /XObject /Subtype /Image /Width 4096 /Height 3840 /ColorSpace /DeviceGray /BitsPerComponent 8 /Length ${part.length} /Filter /FlateDecode >>\nstream\n${part.toString('latin1')}\nendstream`,
    ),
  ]);
  t.notThrows(() => checkDecodedSize(images));
});

test('streams each under the stream limit are refused together past the document limit', (t) => {
  const limits = { streamBytes: 1_000_000, documentBytes: 2_500_000 };
  const part = spaces(900_000);
  t.notThrows(() => checkDecodedSize(pdfWithPages([[part], [part]]), limits));
  const err = t.throws(() => checkDecodedSize(pdfWithPages([[part], [part], [part]]), limits), { instanceOf: DecodeLimitError });
  t.regex(err?.details ?? '', /not images decompress to more than 2 MiB together/);
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
