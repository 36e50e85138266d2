// The decode bound covers every filter pdf.js would run on a stream, in its order: LZW, run-length and ASCII
// encodings as well as flate, and chains of them (/Filter [/FlateDecode /FlateDecode], [/ASCIIHexDecode
// /FlateDecode], [/FlateDecode /LZWDecode]), so no stream slips past as "not flate" or by its first layer only.
import zlib from 'node:zlib';
import test from 'ava';
import { checkDecodedSize, DecodeLimitError } from '../../../pipelines/documents/decoded.ts';
import { DocumentError } from '../../../pipelines/documents/errors.ts';
import { closePdfPool, readPdfText } from '../../../pipelines/documents/pdf.ts';
import { rawPdf } from './helpers.ts';

test.after.always(closePdfPool);

/** PDF's LZW (9 to 12-bit codes, clear 256, end 257, EarlyChange 1), as a PDF writer encodes it. */
function lzwEncode(data: Uint8Array): Buffer {
  const out: number[] = [];
  let acc = 0;
  let bits = 0;
  const put = (code: number, width: number) => {
    acc = (acc << width) | code;
    bits += width;
    while (bits >= 8) {
      out.push((acc >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
    acc &= (1 << bits) - 1;
  };
  let dict = new Map<number, number>();
  let next = 258;
  let width = 9;
  put(256, width);
  let cur = -1;
  for (const byte of data) {
    if (cur < 0) {
      cur = byte;
      continue;
    }
    const hit = dict.get(cur * 256 + byte);
    if (hit !== undefined) {
      cur = hit;
      continue;
    }
    put(cur, width);
    dict.set(cur * 256 + byte, next++);
    // The reader adds this entry one code later and widens as it does: the next code is read at its width.
    if (next >= 1 << width && width < 12) width++;
    if (next >= 4094) {
      put(256, width);
      dict = new Map();
      next = 258;
      width = 9;
    }
    cur = byte;
  }
  if (cur >= 0) {
    put(cur, width);
    if (next + 1 >= 1 << width && width < 12) width++;
  }
  put(257, width);
  if (bits > 0) out.push((acc << (8 - bits)) & 0xff);
  return Buffer.from(out);
}

const runLength = (bytes: number) => Buffer.from(Array.from({ length: Math.ceil(bytes / 128) }, () => [129, 0]).flat()); // 128 zeros per pair
const zeros = (n: number) => new Uint8Array(n);

/** A one-page PDF whose content stream is `data` under these filters (decoding order). */
function pdfWith(data: Buffer, filters: string[]): Uint8Array {
  const filter = filters.length === 1 ? `/${filters[0]}` : `[${filters.map((f) => `/${f}`).join(' ')}]`;
  return rawPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${data.length} /Filter ${filter} >>\nstream\n${data.toString('latin1')}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ]);
}

const small = { streamBytes: 1_000_000, documentBytes: 4_000_000 };

test('the test LZW encoder writes what pdf.js reads, and an ordinary LZW stream passes the check', async (t) => {
  const content = Buffer.from('BT /F1 12 Tf 72 700 Td (Policy number LZW-4417 issued by Acme Mutual) Tj ET\n'.repeat(20));
  const pdf = pdfWith(lzwEncode(content), ['LZWDecode']);
  t.notThrows(() => checkDecodedSize(pdf, small));
  const read = await readPdfText(pdf, 5);
  const text = read.pages.flatMap((p) => p.lines.flatMap((l) => l.cells.map((c) => c.text))).join(' ');
  t.regex(text, /LZW-4417/);
  // Chained with flate and hex, the same content still passes.
  const hex = Buffer.from(zlib.deflateSync(lzwEncode(content)).toString('hex') + '>');
  t.notThrows(() => checkDecodedSize(pdfWith(hex, ['ASCIIHexDecode', 'FlateDecode', 'LZWDecode']), small));
});

test('an LZW stream decoding past the stream limit is refused', (t) => {
  const bomb = lzwEncode(zeros(3_000_000));
  t.true(bomb.length < 20_000, `a small stream: ${bomb.length} bytes`);
  const err = t.throws(() => checkDecodedSize(pdfWith(bomb, ['LZWDecode']), small), { instanceOf: DecodeLimitError });
  t.is(err?.reason, 'decompression_bomb');
  t.notThrows(() => checkDecodedSize(pdfWith(lzwEncode(zeros(900_000)), ['LZWDecode']), small), 'under the limit it passes');
});

test('a run-length stream decoding past the stream limit is refused', (t) => {
  t.throws(() => checkDecodedSize(pdfWith(runLength(2_000_000), ['RunLengthDecode']), small), { instanceOf: DecodeLimitError });
  t.notThrows(() => checkDecodedSize(pdfWith(runLength(500_000), ['RunLengthDecode']), small));
});

test('chains are decoded in order: flate over LZW, flate under hex or ASCII85, flate twice', (t) => {
  const flateLzw = zlib.deflateSync(lzwEncode(zeros(3_000_000)), { level: 9 });
  t.throws(() => checkDecodedSize(pdfWith(flateLzw, ['FlateDecode', 'LZWDecode']), small), { instanceOf: DecodeLimitError }, 'flate then LZW');
  const flate = zlib.deflateSync(zeros(3_000_000), { level: 9 });
  const hex = Buffer.from(flate.toString('hex') + '>');
  t.throws(() => checkDecodedSize(pdfWith(hex, ['ASCIIHexDecode', 'FlateDecode']), small), { instanceOf: DecodeLimitError }, 'hex then flate');
  const a85 = Buffer.from(ascii85(flate) + '~>');
  t.throws(() => checkDecodedSize(pdfWith(a85, ['A85', 'Fl']), small), { instanceOf: DecodeLimitError }, 'ASCII85 then flate, abbreviated');
  const twice = zlib.deflateSync(flate, { level: 9 });
  t.throws(() => checkDecodedSize(pdfWith(twice, ['FlateDecode', 'FlateDecode']), small), { instanceOf: DecodeLimitError }, 'flate twice');
  // An image codec ends the chain: what comes before it is measured, the pixels have their own bound.
  t.notThrows(() => checkDecodedSize(pdfWith(zlib.deflateSync(zeros(500_000)), ['FlateDecode', 'DCTDecode']), small));
});

test('a doubly deflated bomb at the default limits fails the document before pdf.js inflates it', async (t) => {
  const twice = zlib.deflateSync(zlib.deflateSync(zeros(200 * 1024 * 1024), { level: 9 }), { level: 9 });
  t.true(twice.length < 10_000, `a small file: ${twice.length} bytes`);
  const err = await t.throwsAsync(readPdfText(pdfWith(twice, ['FlateDecode', 'FlateDecode']), 5), { instanceOf: DocumentError });
  t.is(err?.code, 'extraction_failed');
  t.is(err?.reason, 'decompression_bomb');
});

/** ASCII85 of `b` (no 'z' shortcut), for the chain test. */
function ascii85(b: Buffer): string {
  let out = '';
  for (let i = 0; i < b.length; i += 4) {
    const chunk = [0, 1, 2, 3].map((k) => b[i + k] ?? 0);
    let v = ((chunk[0] << 24) | (chunk[1] << 16) | (chunk[2] << 8) | chunk[3]) >>> 0;
    const digits: string[] = [];
    for (let k = 0; k < 5; k++) {
      digits.unshift(String.fromCharCode((v % 85) + 33));
      v = Math.floor(v / 85);
    }
    out += digits.slice(0, Math.min(5, b.length - i + 1)).join('');
  }
  return out;
}
