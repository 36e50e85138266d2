// What one document may cost to decode, checked on its raw bytes before pdf.js opens it: a stream decoding past
// MAX_STREAM_DECODED_BYTES, or a document whose streams decode past MAX_DOCUMENT_DECODED_BYTES together, is refused (a
// decompression bomb: a few KB that pdf.js would inflate into hundreds of MB, all of it held at once). A stream's
// filters are decoded in their order (/Filter [/ASCIIHexDecode /FlateDecode], /Filter [/FlateDecode /FlateDecode]):
// each filter expands at most by its ratio (deflate 1032 to 1, LZW about 3641 to 1), so a stream is decoded here only
// when its encoded size times its filters' ratios could reach a limit: an ordinary document is checked by arithmetic,
// a bomb by decoding it up to the limit and no further. Image codecs (DCT, JPX, CCITT, JBIG2) end a chain: their pixels
// have their own bound.
//
// Streams that are not images (page content, fonts, object streams) have tighter limits, MAX_CONTENT_STREAM_DECODED_BYTES
// each and MAX_CONTENT_DECODED_BYTES together: pdf.js joins a page's content streams into one buffer, growing it by
// doubling, and parses it whole, once for the text and again to render the page, so a page of twelve 60 MB content
// streams held gigabytes in the PDF worker. For the same reason a page's content streams together are held to the
// limit of one (fifteen 8 MiB streams on one page raised a worker by 440 MB while it rendered the page). A real page's content is kilobytes to a few MB (a 300-page packet is
// tens of MB in all); a flate-encoded scan is an image and keeps the larger limits.
import zlib from 'node:zlib';

export const MAX_STREAM_DECODED_BYTES = 64 * 1024 * 1024;
export const MAX_DOCUMENT_DECODED_BYTES = 1024 * 1024 * 1024;
export const MAX_CONTENT_STREAM_DECODED_BYTES = 16 * 1024 * 1024;
export const MAX_CONTENT_DECODED_BYTES = 128 * 1024 * 1024;
/** How far back from `stream` its dictionary may start. */
const DICT_WINDOW = 4096;

/** The filters decoded here, by their names and abbreviations, and the most each can expand its input. */
const FILTERS = {
  FlateDecode: 1032, // a 258-byte match in about two bits
  LZWDecode: Math.ceil((4096 * 8) / 9), // a code of at least 9 bits emits at most 4096 bytes
  RunLengthDecode: 64, // two bytes repeat one byte 128 times
  ASCIIHexDecode: 0.5,
  ASCII85Decode: 0.8,
} as const;
type Filter = keyof typeof FILTERS;
const ABBREVIATIONS: Record<string, Filter> = { Fl: 'FlateDecode', LZW: 'LZWDecode', RL: 'RunLengthDecode', AHx: 'ASCIIHexDecode', A85: 'ASCII85Decode' };

export interface DecodeLimits {
  /** Most one stream may decode to, and all of a document's streams together. */
  streamBytes: number;
  documentBytes: number;
  /** The same for the streams that are not images (each under both limits that apply). */
  contentStreamBytes?: number;
  contentDocumentBytes?: number;
}

export const DEFAULT_DECODE_LIMITS: DecodeLimits = {
  streamBytes: MAX_STREAM_DECODED_BYTES,
  documentBytes: MAX_DOCUMENT_DECODED_BYTES,
  contentStreamBytes: MAX_CONTENT_STREAM_DECODED_BYTES,
  contentDocumentBytes: MAX_CONTENT_DECODED_BYTES,
};

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

interface EncodedStream {
  start: number;
  end: number;
  /** The filters decoded here, in decoding order, up to the first one that is not (an image codec). */
  filters: Filter[];
  /** LZW's EarlyChange (1 unless the dictionary says 0). */
  earlyChange: 0 | 1;
  /** An object stream (`/Type /ObjStm`): compressed objects, dictionaries among them. */
  objects: boolean;
  /** An image XObject (`/Subtype /Image`): decoded when its page is rendered, not held with the page's content. */
  image: boolean;
  /** Its object number (`N 0 obj`), when the bytes before its dictionary say. */
  object?: number;
  /** For an object stream: where its first object starts (`/First`). */
  first?: number;
}

/** The streams of a PDF's raw bytes that a filter of FILTERS encodes: where each one's data starts and ends. */
function* encodedStreams(b: Buffer): Generator<EncodedStream> {
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
    const numbered = open >= 0 ? /(\d+)\s+\d+\s+$/.exec(dict.slice(Math.max(0, open - 24), open)) : null;
    const filters = streamFilters(own);
    if (!filters.length) continue;
    const end = b.indexOf('endstream', start, 'latin1');
    yield {
      start,
      end: end < 0 ? b.length : end,
      filters,
      earlyChange: /\/EarlyChange\s+0\b/.test(own) ? 0 : 1,
      objects: /\/Type\s*\/ObjStm\b/.test(own),
      image: /\/Subtype\s*\/Image\b/.test(own),
      object: numbered ? Number(numbered[1]) : undefined,
      first: Number(/\/First\s+(\d+)/.exec(own)?.[1] ?? NaN) || undefined,
    };
    if (end > 0) at = end + 9;
  }
}

/** The /Filter of a stream dictionary (one name or an array), up to the first filter not decoded here. */
function streamFilters(dict: string): Filter[] {
  const m = /\/Filter\s*(\[[^\]]*\]|\/[A-Za-z0-9]+)/.exec(dict);
  if (!m) return [];
  const out: Filter[] = [];
  for (const [, name] of m[1].matchAll(/\/([A-Za-z0-9]+)/g)) {
    const f = name in FILTERS ? (name as Filter) : ABBREVIATIONS[name];
    if (!f) break;
    out.push(f);
  }
  return out;
}

/** Thrown by a decoder whose output passed its limit. */
class OverLimit extends Error {}

/** Decode one filter's data, at most `max` bytes (OverLimit past them). A corrupt input decodes as far as it goes. */
function decodeFilter(f: Filter, data: Buffer, max: number, earlyChange: 0 | 1): Buffer {
  switch (f) {
    case 'FlateDecode':
      try {
        // Z_SYNC_FLUSH: a truncated stream (no end marker) is decoded as far as it goes, as pdf.js would.
        return zlib.inflateSync(data, { maxOutputLength: max + 1, finishFlush: zlib.constants.Z_SYNC_FLUSH });
      } catch (err) {
        if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw new OverLimit();
        return Buffer.alloc(0); // not zlib data: pdf.js cannot inflate it either
      }
    case 'LZWDecode':
      return lzwDecode(data, max, earlyChange);
    case 'RunLengthDecode':
      return runLengthDecode(data, max);
    case 'ASCIIHexDecode': {
      // Digits up to '>'; an odd last digit is followed by a 0.
      const hex = data
        .toString('latin1')
        .replace(/>.*$/s, '')
        .replace(/[^0-9a-fA-F]/g, '');
      return Buffer.from(hex.length % 2 ? `${hex}0` : hex, 'hex');
    }
    case 'ASCII85Decode':
      return ascii85Decode(data);
  }
}

/** PDF's LZW (variable codes of 9 to 12 bits, 256 clears, 257 ends; EarlyChange widens a code early). */
function lzwDecode(data: Buffer, max: number, earlyChange: 0 | 1): Buffer {
  const prefix = new Int16Array(4096);
  const suffix = new Uint8Array(4096);
  const first = new Uint8Array(4096);
  const length = new Uint16Array(4096);
  for (let i = 0; i < 256; i++) {
    prefix[i] = -1;
    suffix[i] = first[i] = i;
    length[i] = 1;
  }
  const chunks: Buffer[] = [];
  let chunk = Buffer.allocUnsafe(1 << 16);
  let used = 0;
  let total = 0;
  let next = 258;
  let width = 9;
  let prev = -1;
  let acc = 0;
  let bits = 0;
  let pos = 0;
  for (;;) {
    while (bits < width && pos < data.length) {
      acc = ((acc << 8) | data[pos++]) & 0xffffff;
      bits += 8;
    }
    if (bits < width) break;
    const code = (acc >>> (bits - width)) & ((1 << width) - 1);
    bits -= width;
    if (code === 256) {
      next = 258;
      width = 9;
      prev = -1;
      continue;
    }
    if (code === 257) break;
    if (code > next || (code === next && prev < 0)) break; // corrupt: pdf.js stops here too
    if (prev >= 0 && next < 4096) {
      prefix[next] = prev;
      suffix[next] = code === next ? first[prev] : first[code];
      first[next] = first[prev];
      length[next] = length[prev] + 1;
      next++;
    }
    const n = length[code];
    total += n;
    if (total > max) throw new OverLimit();
    if (used + n > chunk.length) {
      chunks.push(chunk.subarray(0, used));
      chunk = Buffer.allocUnsafe(Math.max(1 << 16, n));
      used = 0;
    }
    for (let c = code, i = used + n - 1; c >= 0; c = prefix[c], i--) chunk[i] = suffix[c];
    used += n;
    prev = code;
    if (next + earlyChange >= 1 << width && width < 12) width++;
  }
  chunks.push(chunk.subarray(0, used));
  return Buffer.concat(chunks);
}

/** RunLengthDecode: a length byte 0-127 copies the next n+1 bytes, 129-255 repeats the next byte 257-n times, 128 ends. */
function runLengthDecode(data: Buffer, max: number): Buffer {
  let total = 0;
  for (let i = 0; i < data.length;) {
    const n = data[i];
    if (n === 128) break;
    total += n < 128 ? n + 1 : 257 - n;
    i += n < 128 ? n + 2 : 2;
  }
  if (total > max) throw new OverLimit();
  const out = Buffer.alloc(total);
  let o = 0;
  for (let i = 0; i < data.length && o < total;) {
    const n = data[i];
    if (n < 128) {
      data.copy(out, o, i + 1, Math.min(i + 2 + n, data.length));
      o += n + 1;
      i += n + 2;
    } else {
      out.fill(data[i + 1] ?? 0, o, o + 257 - n);
      o += 257 - n;
      i += 2;
    }
  }
  return out;
}

/** ASCII85Decode: groups of five characters '!'..'u' are four bytes, 'z' four zeros, '~>' ends. */
function ascii85Decode(data: Buffer): Buffer {
  const text = data.toString('latin1').replace(/~>.*$/s, '').replace(/\s/g, '');
  const out: number[] = [];
  let group: number[] = [];
  const flush = (count: number) => {
    while (group.length < 5) group.push(84);
    const v = group.reduce((n, d) => n * 85 + d, 0);
    for (let k = 0; k < count; k++) out.push((v >>> (24 - 8 * k)) & 0xff);
    group = [];
  };
  for (const ch of text) {
    if (ch === 'z' && group.length === 0) {
      out.push(0, 0, 0, 0);
      continue;
    }
    const d = ch.charCodeAt(0) - 33;
    if (d < 0 || d > 84) break;
    group.push(d);
    if (group.length === 5) flush(4);
  }
  if (group.length > 1) flush(group.length - 1);
  return Buffer.from(out);
}

/** Throw a DecodeLimitError when a stream, or all of them together, would decode past the limits. */
export function checkDecodedSize(bytes: Uint8Array, limits: DecodeLimits = DEFAULT_DECODE_LIMITS): void {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const contentStream = Math.min(limits.streamBytes, limits.contentStreamBytes ?? Infinity);
  const contentDocument = Math.min(limits.documentBytes, limits.contentDocumentBytes ?? Infinity);
  const found = [...encodedStreams(b)];
  // A stream a page names as its content is content, whatever its dictionary calls it (an image's larger limits
  // for a stream drawn as page content would let the bomb back in).
  const pages = found.some((s) => s.image) ? pageContents(b, found) : undefined;
  const contents = pages && new Set(pages.flat());
  // Each stream's size: known once decoded, else at most its bound (its encoded size times its filters' ratios).
  const streams = found.map((s) => {
    const image = s.image && !(s.object !== undefined && contents?.has(s.object));
    return {
      ...s,
      image,
      size: s.filters.reduce((n, f) => n * FILTERS[f], s.end - s.start),
      exact: false,
      limit: image ? limits.streamBytes : contentStream,
    };
  });
  type Sized = (typeof streams)[number];
  const decode = (s: Sized) => {
    s.exact = true;
    let data = b.subarray(s.start, s.end);
    try {
      for (const f of s.filters) data = decodeFilter(f, data, s.limit, s.earlyChange);
      s.size = data.length;
    } catch (err) {
      if (!(err instanceof OverLimit)) throw err;
      s.size = s.limit + 1;
    }
    if (s.size > s.limit) throw new DecodeLimitError(`${s.image ? 'an image' : 'a stream'} decompresses to more than ${mib(s.limit)}`);
  };
  for (const s of streams) if (s.size > s.limit) decode(s);
  // Together: replace the largest bounds by exact sizes until the sum is under the limit, or exact and over it.
  const within = (set: Sized[], limit: number, what: string) => {
    const sum = () => set.reduce((n, s) => n + s.size, 0);
    const pending = set.filter((s) => !s.exact).sort((x, y) => y.size - x.size);
    while (sum() > limit) {
      const next = pending.shift();
      if (!next) throw new DecodeLimitError(`${what} decompress to more than ${mib(limit)} together`);
      decode(next);
    }
  };
  within(
    streams.filter((s) => !s.image),
    contentDocument,
    'the page contents and other streams that are not images',
  );
  within(streams, limits.documentBytes, 'the streams');
  // One page: pdf.js joins its content streams into one buffer, so together they are one stream to it. Looked at
  // only when the content streams' bounds together could pass the limit (a page's share is never more).
  const content = streams.filter((s) => !s.image);
  if (content.reduce((n, s) => n + s.size, 0) <= contentStream) return;
  const byObject = new Map(content.filter((s) => s.object !== undefined).map((s) => [s.object!, s]));
  for (const page of pages ?? pageContents(b, found) ?? []) {
    const own = [...new Set(page)].flatMap((n) => byObject.get(n) ?? []);
    if (own.length > 1) within(own, contentStream, "a page's content streams");
  }
}

const mib = (n: number) => `${Math.round(n / 1024 / 1024)} MiB`;

/** Most bytes one object stream is decoded to when looking inside it (a dictionary holder, not page content). */
const MAX_OBJECT_STREAM_BYTES = 16 * 1024 * 1024;

/** Each object stream of a PDF decoded (its text and `/First`), or undefined when one will not decode here. */
function decodedObjectStreams(b: Buffer, streams: Iterable<EncodedStream>): Array<{ text: string; first?: number }> | undefined {
  const out: Array<{ text: string; first?: number }> = [];
  for (const s of streams) {
    if (!s.objects) continue;
    let data = b.subarray(s.start, s.end);
    try {
      for (const f of s.filters) data = decodeFilter(f, data, MAX_OBJECT_STREAM_BYTES, s.earlyChange);
    } catch {
      return undefined;
    }
    // Nothing decoded (not zlib data here): pdf.js's own decoders are more forgiving, so it may still read it.
    if (data.length === 0 && s.end > s.start) return undefined;
    out.push({ text: data.toString('latin1'), first: s.first });
  }
  return out;
}

/** The compressed objects of a PDF by object number, or undefined when an object stream will not decode here. */
function compressedObjects(b: Buffer, streams: EncodedStream[]): Map<number, string> | undefined {
  const decoded = decodedObjectStreams(b, streams);
  if (!decoded) return undefined;
  const objects = new Map<number, string>();
  for (const { text, first } of decoded) {
    if (first === undefined) continue;
    const pairs = text.slice(0, first).trim().split(/\s+/).map(Number);
    for (let k = 0; k + 1 < pairs.length; k += 2) {
      const from = first + pairs[k + 1];
      const to = k + 3 < pairs.length ? first + pairs[k + 3] : text.length;
      objects.set(pairs[k], text.slice(from, to));
    }
  }
  return objects;
}

/**
 * The object numbers of the streams each page names as its content (`/Contents 7 0 R`, `/Contents [7 0 R 8 0 R]`, or a
 * reference to such an array), one group a page, read from the raw bytes and the compressed objects. Undefined when
 * the compressed objects cannot be read here (an encrypted file, an object stream that will not decode).
 */
function pageContents(b: Buffer, streams: EncodedStream[]): number[][] | undefined {
  const raw = b.toString('latin1');
  const compressed = b.includes('/ObjStm', 0, 'latin1') ? (b.includes('/Encrypt', 0, 'latin1') ? undefined : compressedObjects(b, streams)) : new Map();
  if (!compressed) return undefined;
  const refs = (text: string) => [...text.matchAll(/(\d+)\s+\d+\s+R/g)].map((m) => Number(m[1]));
  /** An array object's text: in the raw bytes (`N 0 obj [...]`) or among the compressed objects. */
  const arrayOf = (n: number) =>
    new RegExp(`(?:^|\\D)${n}\\s+\\d+\\s+obj\\s*(\\[[^\\]]*\\])`).exec(raw)?.[1] ?? /^\s*(\[[^\]]*\])/.exec(compressed.get(n) ?? '')?.[1];
  const pages: number[][] = [];
  for (const text of [raw, ...compressed.values()])
    for (const m of text.matchAll(/\/Contents\s*(\[[^\]]*\]|\d+\s+\d+\s+R)/g)) {
      const page: number[] = [];
      for (const n of refs(m[1])) {
        page.push(n);
        const array = m[1].startsWith('[') ? undefined : arrayOf(n);
        if (array) page.push(...refs(array));
      }
      pages.push(page);
    }
  return pages;
}

/**
 * Whether a PDF's dictionaries may hold any of `names` (`/Annots`, `/Type3`, ...): in its raw bytes, or inside
 * its compressed object streams, which are decoded to look. True when it cannot tell (an encrypted file, an
 * object stream that will not decode), so a caller only skips work when the name is surely absent.
 */
export function mayContainName(bytes: Uint8Array, names: readonly string[]): boolean {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (names.some((n) => b.includes(n, 0, 'latin1'))) return true;
  if (!b.includes('/ObjStm', 0, 'latin1')) return false;
  if (b.includes('/Encrypt', 0, 'latin1')) return true;
  const decoded = decodedObjectStreams(b, encodedStreams(b));
  return !decoded || decoded.some(({ text }) => names.some((n) => text.includes(n)));
}
