import test from 'ava';
import { readDocument, closeDocumentPools } from '../../../pipelines/documents/index.ts';
import { layoutPage, type TextItem } from '../../../pipelines/documents/layout.ts';
import { withHeaderBandOcr, addRegionWords, ocrRegion } from '../../../pipelines/extraction/region_ocr.ts';
import { extractDocument, extractReadDocument } from '../../../pipelines/extraction/index.ts';
import { logoPdf } from '../../helpers/logo_pdf.ts';

test.after.always(() => closeDocumentPools());

test('region OCR reads a logo in the header band into the page, beside its text layer', async (t) => {
  const bytes = await logoPdf('HANOVER');
  const doc = await readDocument(bytes);
  t.is(doc.method, 'text');
  t.notRegex(doc.pages[0].text, /HANOVER/i);
  const words = await ocrRegion(bytes, { page: 1, x: 380, y: 0, w: 232, h: 100 });
  t.true(words.some((w) => /HANOVER/i.test(w.text)));
  // Word positions are page points: the logo sits at x 400–580, y 20–64.
  const w = words.find((x) => /HANOVER/i.test(x.text))!;
  t.true(w.x > 390 && w.x < 520 && w.y > 10 && w.y < 60, JSON.stringify(w));
  const banded = await withHeaderBandOcr(bytes, doc);
  t.truthy(banded);
  const p = banded!.pages[0];
  t.true(p.ocrAssisted);
  t.is(banded!.method, 'mixed');
  // The logo's stacked words are one line; the title from the text layer is not read twice.
  t.truthy(
    p.lines.find((l) => /^HANOVER INSURANCE$/i.test(l.text)),
    p.text,
  );
  t.is(p.text.match(/Auto Insurance Declarations/g)?.length, 1);
});

test('words where the text layer already has text are not added', (t) => {
  const it = (text: string, x: number, y: number, w: number, source: TextItem['source'] = 'text', conf = 1): TextItem => ({
    text,
    x,
    y,
    w,
    h: 10,
    source,
    conf,
  });
  const page = layoutPage(1, 612, 792, [it('Declarations', 40, 40, 80)], 'text');
  t.is(addRegionWords(page, [it('Declarations', 41, 41, 78, 'ocr', 0.95)]), undefined);
  t.is(addRegionWords(page, [it('ACME', 400, 40, 40, 'ocr', 0.3)]), undefined, 'low confidence');
  const added = addRegionWords(page, [it('ACME', 400, 40, 40, 'ocr', 0.9)]);
  t.deepEqual(
    added?.lines.map((l) => l.text),
    ['Declarations', 'ACME'],
  );
  t.is(page.lines.length, 1, 'the page given is not changed');
});

test('extraction: a carrier only in the logo is found by OCR of the header band, and the method says so', async (t) => {
  const r = await extractDocument(await logoPdf('HANOVER'), { entityType: 'auto_policy' });
  t.regex(r.extracted_data.policy.provider ?? '', /hanover/i);
  t.is(r.extracted_data.citations['/policy/provider']?.page, 1);
  t.is(r.parsing_method, 'pdf_text+ocr');
  t.true(r._raw.pages[0].ocr_assisted);
  // The rest is read from the text layer as before.
  t.is(r.extracted_data.policy.policy_number, '77-AB-120934');
});

test('region OCR shares the stage budget: past it the document is extracted from its text layer, and says a region was not read', async (t) => {
  const bytes = await logoPdf('HANOVER');
  const doc = await readDocument(bytes);
  const started = Date.now();
  const r = await extractReadDocument(doc, async () => bytes, { entityType: 'auto_policy', read: { stageBudgetMs: 1 } });
  t.true(Date.now() - started < 5_000, 'no OCR ran past the budget');
  t.is(r.extracted_data.policy.provider, null, 'the logo was not read');
  t.is(r.parsing_method, 'pdf_text');
  t.is(r.extracted_data.policy.policy_number, '77-AB-120934', 'the text layer is still extracted');
  t.true(
    r.errors.some((e) => /a region was not read again: the region OCR stage took longer than its budget of 1 ms/.test(e.message)),
    JSON.stringify(r.errors),
  );
});
