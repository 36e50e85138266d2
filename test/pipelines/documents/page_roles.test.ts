import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import { PDFDocument } from 'pdf-lib';
import {
  readDocument,
  readTextLayer,
  scorePage,
  choosePages,
  closeDocumentPools,
  LOCATE_ABOVE_PAGES,
  type TextItem,
  type PageScore,
} from '../../../pipelines/documents/index.ts';
import { extractDocument } from '../../../pipelines/extraction/index.ts';
import { fixture, fixturesDir, textPdf } from './helpers.ts';

test.after.always(() => closeDocumentPools());

/** Text runs, one per line, 14 pt apart from `top`. */
const runs = (lines: string[], top = 60): TextItem[] => lines.map((text, k) => ({ text, x: 50, y: top + k * 14, w: text.length * 5, h: 10, source: 'text' }));
const prose = 'We will pay those sums that the insured becomes legally obligated to pay as damages because of bodily injury to which this insurance applies.';

test('a page is scored from its vocabulary and layout', (t) => {
  const dec = runs([
    'Harbor Light Insurance Company',
    'COMMON POLICY DECLARATIONS',
    'Policy Number: HL 5521',
    'Named Insured: Blue Fin Cafe LLC',
    'Policy Period: 01/01/2025 to 01/01/2026',
    'Total Premium: $3,120',
  ]);
  t.is(scorePage(1, dec, 792).role, 'declarations');
  const form = runs([
    'THIS ENDORSEMENT CHANGES THE POLICY. PLEASE READ IT CAREFULLY.',
    prose,
    prose,
    prose,
    'Limits Of Insurance shown in the Declarations apply.',
  ]);
  t.is(scorePage(2, form, 792).role, 'forms_and_endorsements');
  const cert = runs(['CERTIFICATE OF LIABILITY INSURANCE', 'PRODUCER', 'INSURED', 'CERTIFICATE HOLDER']);
  t.is(scorePage(3, cert, 792).role, 'certificate');
  // "Declarations" in the prose of a form is not a declarations page.
  const mention = runs([prose, `${prose} The Named Insured shown in the Declarations.`, prose, prose]);
  t.not(scorePage(4, mention, 792).role, 'declarations');
  t.deepEqual(scorePage(5, [], 792), { page: 5, role: 'other', score: 0, text: false });
});

test('the pages read: declarations and schedules; without any, the front; textless pages only at the front', (t) => {
  const pages = Array.from({ length: 40 }, (_, k) => ({ page: k + 1, role: 'forms_and_endorsements' as const, score: 4, text: true }));
  pages[4] = { page: 5, role: 'declarations' as never, score: 5, text: true };
  pages[20] = { page: 21, role: 'other' as never, score: 0, text: false };
  pages[2] = { page: 3, role: 'other' as never, score: 0, text: false };
  const chosen = choosePages(pages);
  t.deepEqual(
    chosen.filter((c) => c.read).map((c) => c.page),
    [3, 5],
  );
  t.regex(chosen[20].why, /not among the pages that matter/);
  // A declarations page that runs over: the page after it is read while either says it continues.
  const over: PageScore[] = pages.map((p) => ({ ...p }));
  over[4] = { ...over[4], continued: true };
  over[5] = { ...over[5], continued: true };
  t.deepEqual(
    choosePages(over)
      .filter((c) => c.read)
      .map((c) => [c.page, c.why]),
    [
      [3, 'no text layer, front of the document'],
      [5, 'scored declarations'],
      [6, 'continues the declarations on page 5'],
      [7, 'continues the declarations on page 5'],
    ],
  );
  // Nothing scored as declarations: the front pages are read.
  const none = choosePages(pages.map((p) => ({ ...p, role: 'forms_and_endorsements' as const })));
  t.deepEqual(
    none.filter((c) => c.read).map((c) => c.page),
    Array.from({ length: 12 }, (_, k) => k + 1),
  );
});

test('a 200-page packet: every page skimmed, only its declarations read, and its facts extracted', async (t) => {
  const expected = JSON.parse(fs.readFileSync(path.join(fixturesDir, 'packet_cpp_northgate.expected.json'), 'utf8'));
  const doc = await readDocument(fixture('packet_cpp_northgate.pdf'), { ocr: false, locateAbovePages: LOCATE_ABOVE_PAGES });
  t.is(doc.pageCount, 200);
  t.is(doc.status, 'success');
  t.is(doc.located?.length, 200);
  const read = doc.pages.map((p) => p.page);
  t.deepEqual(read, [expected.located_pages.declarations, ...expected.located_pages.coverage_parts]);
  for (const p of doc.pages) t.is(p.located?.role, 'declarations');
  t.true(doc.located!.filter((l) => !l.read).every((l) => l.role === 'forms_and_endorsements' || l.role === 'other'));
  const r = await extractDocument(fixture('packet_cpp_northgate.pdf'), { entityType: 'commercial_general_liability', read: { ocr: false } });
  t.is(r.parsing_status, 'completed');
  t.is(r.extracted_data.policy.provider, expected.policy.provider);
  t.is(r.extracted_data.citations['/policy/provider'].page, expected.located_pages.declarations);
  t.deepEqual(
    r._raw.page_selection?.read.map((p) => p.page),
    read,
  );
  t.is(r._raw.page_selection?.skimmed.forms_and_endorsements?.length, 197);
  // _raw holds the pages read, not the 197 skimmed.
  t.is(r._raw.pages.length, 3);
});

test('a document of more pages than the old cap of 50 is read, not refused', async (t) => {
  const pages = Array.from({ length: 64 }, (_, k) => [`Page ${k + 1} of the policy forms`, prose.slice(0, 90)]);
  pages[1] = ['BUSINESSOWNERS POLICY DECLARATIONS', 'Policy Number: BP 1234567', 'Named Insured: Corner Store Inc', 'Policy Period: 02/01/2025 to 02/01/2026'];
  const doc = await readDocument(await textPdf(pages), { ocr: false, locateAbovePages: LOCATE_ABOVE_PAGES });
  t.is(doc.pageCount, 64);
  t.true(doc.pages.some((p) => p.page === 2 && p.located?.role === 'declarations'));
});

test('a long scan: only the front pages are queued for OCR, not every page', async (t) => {
  const pdf = await PDFDocument.create();
  for (let k = 0; k < 40; k++) pdf.addPage([612, 792]);
  const layer = await readTextLayer(await pdf.save(), { locateAbovePages: LOCATE_ABOVE_PAGES });
  t.deepEqual(
    layer.needOcr,
    Array.from({ length: 12 }, (_, k) => k + 1),
  );
  t.is(layer.located?.length, 40);
  // A short document is read whole, as before.
  const short = await PDFDocument.create();
  for (let k = 0; k < 5; k++) short.addPage([612, 792]);
  const all = await readTextLayer(await short.save(), { locateAbovePages: LOCATE_ABOVE_PAGES });
  t.deepEqual(all.needOcr, [1, 2, 3, 4, 5]);
  t.is(all.located, undefined);
});
