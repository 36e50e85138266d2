// A failed extraction through the real chain (upload → read → OCR → extract): the §2.9 record with its §7.2
// error part, and a parsing_method that says what was used.
import test from 'ava';
import { finished, upload } from '../helpers/extraction.ts';
import { serviceRig } from '../helpers/rig.ts';
import { solidImage } from '../helpers/images.ts';
import { agencyWithTestKey } from '../helpers/server.ts';

const rig = serviceRig({ OCR_ENGINE: 'tesseract-cli' });

test('a photo with no policy on it fails as a §2.9 record with error, message and details, read by ocr', async (t) => {
  const { key, ...a } = await agencyWithTestKey(rig.svc);
  const blank = await solidImage(1200, 900, '#ffffff');
  const r = await upload(rig.svc, key, a.ownerId, blank, 'blank-photo.png');
  t.is(r.status, 200, r.text);
  const rec = await finished(rig.svc, key, a.ownerId, r.body.extraction_id, 120_000);
  t.is(rec.parsing_status, 'failed', JSON.stringify(rec));
  t.false(rec.success);
  t.is(rec.parsing_method, 'ocr', 'an image is read by OCR only, even when OCR finds nothing');
  t.is(rec.error, 'extraction_failed');
  t.is(typeof rec.message, 'string');
  t.true(rec.message.length > 0);
  t.is(typeof rec.details, 'string');
  t.true(rec.details.length > 0);
  t.is(rec.extracted_data, null);
});
