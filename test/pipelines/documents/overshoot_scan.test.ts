// Small type on a scan: the engine reads two words but boxes the first over the second ("Name" over "of"); they
// are two words, where a word the engine split at a narrow gap (a letter-spaced heading) stays one.
import test from 'ava';
import { readDocument, closeDocumentPools } from '../../../pipelines/documents/index.ts';
import { layoutPage, type TextItem } from '../../../pipelines/documents/layout.ts';
import { renderFreeCertificate } from '../../../fixtures/free_certificate.ts';
import { randomFreeCertificateSpec } from '../../../fixtures/free_certificate_random.ts';

test.after.always(() => closeDocumentPools());

const ocr = (text: string, x: number, w: number): TextItem => ({ text, x, y: 100, w, h: 10, source: 'ocr', conf: 0.9, line: 0 });

test('OCR words whose boxes overlap are two words; words a narrow gap apart are one', (t) => {
  const page = layoutPage(1, 612, 792, [ocr('Name', 50, 40), ocr('of', 71, 6), ocr('Insured:', 81, 28), ocr('IN', 200, 12), ocr('SURANCE', 213, 48)], 'ocr');
  t.deepEqual(
    page.lines[0].cells.map((c) => c.text),
    ['Name of Insured:', 'INSURANCE'],
  );
});

test('OCR words with a lower-case letter set edge to edge are two words; capitals pieces are one', (t) => {
  const page = layoutPage(
    1,
    612,
    792,
    [ocr('Total', 50, 25), ocr('Annual', 75, 30), ocr('Premium:', 105.5, 40), ocr('IN', 200, 12), ocr('SURANCE', 213, 48)],
    'ocr',
  );
  t.deepEqual(
    page.lines[0].cells.map((c) => c.text),
    ['Total Annual Premium:', 'INSURANCE'],
  );
});

test('a 150 dpi scan of Times 8: "Name of Insured" and "Insurance Agency" keep their spaces', async (t) => {
  const spec = randomFreeCertificateSpec(91017);
  t.like(spec, { font: 'Times', size: 8, scan: { dpi: 150 } });
  const read = await readDocument((await renderFreeCertificate(spec)).pdf, {});
  const text = read.pages[0].text;
  t.true(text.includes('Name of Insured'), text);
  t.true(text.includes('Harbor & Pine Insurance Agency'), text);
});
