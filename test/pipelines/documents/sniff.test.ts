import test from 'ava';
import sharp from 'sharp';
import { apiErrorBody, fromDocumentError } from '../../../http/errors.ts';
import { sniff, DocumentError } from '../../../pipelines/documents/index.ts';
import { fixture, pngHeader, actl } from './helpers.ts';

const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    if (e instanceof DocumentError) {
      const api = fromDocumentError(e);
      return { code: e.code, reason: e.reason, status: api.status, body: apiErrorBody(api) as Record<string, unknown> };
    }
    throw e;
  }
  return undefined;
};

test('PDF, JPEG and PNG are told apart by their bytes', (t) => {
  t.is(sniff(fixture('auto_acme_mutual.pdf')).kind, 'pdf');
  const jpg = sniff(fixture('auto_acme_mutual_photo.jpg'));
  t.is(jpg.kind, 'jpeg');
  t.true(jpg.width! > 0 && jpg.height! > 0);
  t.is(sniff(fixture('renters_maple_photo.png')).kind, 'png');
});

test('a text file renamed .pdf is a bad_request', (t) => {
  const r = code(() => sniff(new TextEncoder().encode('Policy Number: 123\nThis is not a PDF at all.')));
  t.is(r?.code, 'bad_request');
  t.is(r?.status, 400);
  t.deepEqual(Object.keys(r!.body).sort(), ['error', 'message']);
});

test('an empty file and a TIFF are bad_request', (t) => {
  t.is(code(() => sniff(new Uint8Array()))?.code, 'bad_request');
  t.is(code(() => sniff(new Uint8Array([0x49, 0x49, 0x2a, 0x00, 1, 2, 3, 4])))?.reason, 'unsupported_type');
});

test('a file over 10 MB is payload_too_large (413)', (t) => {
  const big = new Uint8Array(10 * 1024 * 1024 + 1);
  big.set(new TextEncoder().encode('%PDF-1.7\n'));
  const r = code(() => sniff(big));
  t.is(r?.code, 'payload_too_large');
  t.is(r?.status, 413);
  t.is(code(() => sniff(fixture('auto_acme_mutual.pdf'), { maxBytes: 1024 }))?.code, 'payload_too_large');
});

test('an image bomb is refused from its header, before decoding', (t) => {
  const r = code(() => sniff(pngHeader(50_000, 50_000)));
  t.is(r?.code, 'bad_request');
  t.is(r?.reason, 'image_too_large');
});

test('a multi-frame (animated) PNG is refused: images are one page', (t) => {
  const r = code(() => sniff(pngHeader(100, 100, [actl(3)])));
  t.is(r?.code, 'bad_request');
  t.is(r?.reason, 'multi_page_image');
  t.is(sniff(pngHeader(100, 100, [actl(1)])).kind, 'png');
});

test('a real animated PNG made by sharp is refused too', async (t) => {
  const frame = { create: { width: 8, height: 8, channels: 3 as const, background: '#fff' } };
  const anim = await sharp(
    [
      await sharp(frame).png().toBuffer(),
      await sharp({ create: { ...frame.create, background: '#000' } })
        .png()
        .toBuffer(),
    ],
    { join: { animated: true } },
  )
    .png()
    .toBuffer()
    .catch(() => undefined);
  if (!anim) return t.pass('this sharp build cannot write animated PNG');
  const r = code(() => sniff(new Uint8Array(anim)));
  if (r === undefined) return t.pass('sharp wrote a single-frame PNG');
  t.is(r.reason, 'multi_page_image');
});
