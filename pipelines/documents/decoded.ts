// What one document may cost to decode, checked on its raw bytes before pdf.js opens it: a flate stream decoding past
// MAX_STREAM_DECODED_BYTES, or a document whose flate streams decode past MAX_DOCUMENT_DECODED_BYTES together, is
// refused (a decompression bomb: a few KB that pdf.js would inflate into hundreds of MB, all of it held at once).
// Deflate expands at most 1032 to 1, so a stream is inflated here only when its compressed size could reach a limit:
// an ordinary document is checked by arithmetic, a bomb by inflating it up to the limit and no further.
import zlib from 'node:zlib';

export const MAX_STREAM_DECODED_BYTES = 64 * 1024 * 1024;
export const MAX_DOCUMENT_DECODED_BYTES = 1024 * 1024 * 1024;
/** The most a deflate stream can expand (a 258-byte match in about two bits). */
const DEFLATE_MAX_RATIO = 1032;
/** How far back from `stream` its dictionary may start. */
const DICT_WINDOW = 4096;

export interface DecodeLimits {
  streamBytes: number;
  documentBytes: number;
}

export const DEFAULT_DECODE_LIMITS: DecodeLimits = { streamBytes: MAX_STREAM_DECODED_BYTES, documentBytes: MAX_DOCUMENT_DECODED_BYTES };

/** A document over a decoding limit: which limit, for the document's failure reason. */
export class DecodeLimitError extends Error {
  readonly code = 'extraction_failed';
  readonly reason = 'decompression_bomb';
  readonly details: string;
  constructor(details: string) {
    super('the PDF decompresses to more than this service reads from one document');
    this.details = details;
  }
}

/** The flate streams of a PDF's raw bytes: where each one's data starts and ends. */
function* flateStreams(b: Buffer): Generator<{ start: number; end: number }> {
  let at = 0;
  for (;;) {
    const k = b.indexOf('stream', at, 'latin1');
    if (k < 0) return;
    at = k + 6;
    if (b.subarray(Math.max(0, k - 3), k).toString('latin1') === 'end') continue; // `endstream`
    let start = k + 6;
    if (b[start] === 0x0d) start++;
    if (b[start] !== 0x0a && b[start - 1] !== 0x0d) continue; // not the keyword (text that contains "stream")
    if (b[start] === 0x0a) start++;
    const dict = b.subarray(Math.max(0, k - DICT_WINDOW), k).toString('latin1');
    const open = dict.lastIndexOf('obj');
    const own = open >= 0 ? dict.slice(open) : dict;
    if (!/\/FlateDecode\b/.test(own)) continue;
    const end = b.indexOf('endstream', start, 'latin1');
    yield { start, end: end < 0 ? b.length : end };
    if (end > 0) at = end + 9;
  }
}

/** Throw a DecodeLimitError when a flate stream, or all of them together, would decode past the limits. */
export function checkDecodedSize(bytes: Uint8Array, limits: DecodeLimits = DEFAULT_DECODE_LIMITS): void {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // Each stream's size: known once inflated, else at most its bound.
  const streams = [...flateStreams(b)].map((s) => ({ ...s, size: (s.end - s.start) * DEFLATE_MAX_RATIO, exact: false }));
  const inflate = (s: (typeof streams)[number]) => {
    s.exact = true;
    try {
      // Z_SYNC_FLUSH: a truncated stream (no end marker) is decoded as far as it goes, as pdf.js would.
      s.size = zlib.inflateSync(b.subarray(s.start, s.end), { maxOutputLength: limits.streamBytes + 1, finishFlush: zlib.constants.Z_SYNC_FLUSH }).length;
    } catch (err) {
      // Not zlib data (pdf.js cannot inflate it either, or another filter comes first): it decodes to nothing here.
      s.size = (err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' ? limits.streamBytes + 1 : 0;
    }
    if (s.size > limits.streamBytes) throw new DecodeLimitError(`a stream decompresses to more than ${mib(limits.streamBytes)}`);
  };
  for (const s of streams) if (s.size > limits.streamBytes) inflate(s);
  // The document: replace the largest bounds by exact sizes until the sum is under the limit, or exact and over it.
  const sum = () => streams.reduce((n, s) => n + s.size, 0);
  const pending = streams.filter((s) => !s.exact).sort((x, y) => y.size - x.size);
  while (sum() > limits.documentBytes) {
    const next = pending.shift();
    if (!next) throw new DecodeLimitError(`the streams decompress to more than ${mib(limits.documentBytes)} together`);
    inflate(next);
  }
}

const mib = (n: number) => `${Math.round(n / 1024 / 1024)} MiB`;
