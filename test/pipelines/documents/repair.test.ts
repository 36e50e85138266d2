import test from 'ava';
import { PDFDocument, StandardFonts, popGraphicsState, pushGraphicsState, setCharacterSpacing } from 'pdf-lib';
import {
  repairTextItems,
  removeDoubledGlyphs,
  fixReversedNumber,
  isLetterSpaced,
  runsWordsTogether,
  joinSpacedRuns,
} from '../../../pipelines/documents/repair.ts';
import { layoutPage, type TextItem } from '../../../pipelines/documents/layout.ts';
import { readDocument, readTextLayer, closeDocumentPools } from '../../../pipelines/documents/index.ts';

test.after.always(() => closeDocumentPools());

/** A PDF whose words are drawn one by one, each right after the previous with a 0.4 pt gap and no space. */
async function runTogetherPdf(lines: string[]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  lines.forEach((l, i) => {
    let x = 50;
    for (const w of l.split(' ')) {
      page.drawText(w, { x, y: 740 - i * 24, size: 14, font });
      x += font.widthOfTextAtSize(w, 14) + 0.4;
    }
  });
  return doc.save();
}

/**
 * A page where some runs are drawn with 2 pt character spacing (Tc), which pdf.js reads as "2 0 1 4", beside
 * ordinary text on the same lines; the address's words are letter-spaced runs 5 pt apart.
 */
async function letterSpacedPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  const size = 10;
  const spaced = (text: string, x: number, y: number) => {
    page.pushOperators(pushGraphicsState(), setCharacterSpacing(2));
    page.drawText(text, { x, y, size, font });
    page.pushOperators(setCharacterSpacing(0), popGraphicsState());
    return x + font.widthOfTextAtSize(text, size) + 2 * text.length;
  };
  page.drawText('Policy Period:', { x: 50, y: 700, size, font });
  const x = spaced('05/12/2022', 130, 700);
  page.drawText('-', { x: x + 1, y: 700, size, font });
  spaced('05/12/2023', x + 6, 700);
  page.drawText('Named Insured Jane Q Public', { x: 320, y: 700, size, font });
  page.drawText('1', { x: 50, y: 680, size, font });
  spaced('2014', 80, 680);
  spaced('HOND', 130, 680);
  page.drawText('Coverage A B limits 1 2003 Toyota', { x: 200, y: 680, size, font });
  let ax = 50;
  for (const w of '10330 E POINT RD S'.split(' ')) ax = spaced(w, ax, 660) + 5;
  page.drawText('Mailing Address: 12 Elm St Apt 4 B', { x: 50, y: 640, size, font });
  return doc.save();
}

const item = (text: string, x: number, y: number, w: number, h = 10): TextItem => ({ text, x, y, w, h, source: 'text' });

test('fake-bold runs drawn two or three times are read once', (t) => {
  // "ORIGINAL POLICY DECLARATIONS" drawn three times at 0.2 pt offsets, cut into different runs.
  const items = [
    item('ORIGINAL P', 176.2, 10, 84.4),
    item('ORIGINAL P', 176.4, 10.2, 84.4),
    item('ORIGINAL POLICY DECLAR', 176.6, 10.2, 192.5),
    item('OLICY DECLAR', 260.9, 10.2, 108.5),
    item('OLICY DECLARATIONS', 261.1, 10.2, 161.7),
    item('ATIONS', 369.4, 10.2, 53.7),
    item('ATIONS', 369.6, 10.2, 53.7),
  ];
  const r = repairTextItems(items);
  t.deepEqual(r.repairs, ['doubled_glyphs']);
  const page = layoutPage(1, 612, 792, r.items, 'text');
  t.is(page.lines[0].text.replace(/\s+/g, ' '), 'ORIGINAL POLICY DECLARATIONS');
  // Without the repair the line is garbled.
  t.not(layoutPage(1, 612, 792, items, 'text').lines[0].text.replace(/\s+/g, ' '), 'ORIGINAL POLICY DECLARATIONS');
});

test('ordinary text with no duplicates is left alone', (t) => {
  const items = [item('Policy Number', 50, 100, 60), item('HO-123', 200, 100, 40), item('Named Insured', 50, 120, 62), item('Jane Roe', 200, 120, 40)];
  const r = repairTextItems(items);
  t.deepEqual(r.repairs, []);
  t.deepEqual(r.items, items);
  t.is(removeDoubledGlyphs(items).changed, 0);
});

test('numbers stored right to left are turned round; valid numbers are not', (t) => {
  t.is(fixReversedNumber('009,042'), '240,900');
  t.is(fixReversedNumber('000,003'), '300,000');
  t.is(fixReversedNumber('000,1'), '1,000');
  t.is(fixReversedNumber('240,900'), '240,900');
  t.is(fixReversedNumber('1,000'), '1,000');
  const r = repairTextItems([item('$', 498, 200, 6), item('009,042', 570, 200, 30), item('A Dwelling', 35, 200, 40)]);
  t.deepEqual(r.repairs, ['reversed_numbers']);
  t.is(r.items[1].text, '240,900');
});

test('letter-spaced pages: spaces inside numbers and after a lone capital are removed', (t) => {
  const items = [
    item('M ailing A ddress: 68 Fairmont St', 46, 300, 200),
    item('Driving Y ears OR A ge 6 5 and Older', 64, 320, 200),
    item('O ptional Bodily Injury', 46, 340, 100),
    item('2 0,0 0 0 Each Person', 224, 340, 80),
    item('$ 1 2 4.0 0', 350, 340, 30),
    item('C aused', 46, 360, 30),
  ];
  t.true(isLetterSpaced(items));
  const r = repairTextItems(items);
  t.deepEqual(r.repairs, ['letter_spacing']);
  const text = r.items.map((i) => i.text);
  t.true(text.includes('20,000 Each Person'));
  t.true(text.includes('$124.00'));
  t.true(text.includes('Optional Bodily Injury'));
  // An ordinary page with "1 2003 Toyota" keeps its spaces.
  t.false(isLetterSpaced([item('1 2003 Toyota Sequoia', 38, 395, 120), item('2 2011 Toyota Prius', 38, 425, 120)]));
});

test('letter-spaced runs are joined per run, beside ordinary words on the same page and line', async (t) => {
  const d = await readDocument(await letterSpacedPdf(), { ocr: false });
  const p = d.pages[0];
  t.deepEqual(p.repairs, ['letter_spacing']);
  const lines = p.lines.map((l) => l.text);
  t.is(lines[0], 'Policy Period:  05/12/2022-05/12/2023  Named Insured Jane Q Public', p.text);
  t.is(lines[1], '1  2014  HOND  Coverage A B limits 1 2003 Toyota', p.text);
  t.is(lines[2], '10330 E POINT RD S', p.text);
  t.is(lines[3], 'Mailing Address: 12 Elm St Apt 4 B', p.text);
  // Without the repair the runs read as pdf.js gives them.
  const raw = await readDocument(await letterSpacedPdf(), { ocr: false, repairTextLayer: false });
  t.regex(raw.pages[0].text, /2 0 1 4/);
});

test('a letter-spaced run stops after a complete date; short or lone fragments of ordinary text stay apart', (t) => {
  t.is(joinSpacedRuns('0 5/1 2/2 0 2 3 1 2:0 1 a'), '05/12/2023 12:01 a');
  t.is(joinSpacedRuns('rene w s on 0 5/1 2/2 0 2 2.'), 'rene w s on 05/12/2022.');
  t.is(joinSpacedRuns('C HE V'), 'CHEV');
  t.is(joinSpacedRuns('$ 1 2 4.0 0'), '$124.00');
  for (const s of ['David A Paul', '1 2003 Toyota', 'Coverage A B', 'Section 1 2 3', 'Page 1 of 5', 'IN OR', 'from 1 / 2 to', 'Veh 1  Veh 2'])
    t.is(joinSpacedRuns(s), s);
});

test('words run together (glyphs placed without spaces): the page is read by OCR instead, its text kept as fallback', async (t) => {
  const lines = [
    'Your State Farm Agent Policy Number Effective Dates',
    'Location of Residence Premises Construction Masonry Veneer',
    'Annual Premium Total Premium Coverage Limit of Liability',
    'Dwelling Other Structures Personal Property Loss of Use',
  ];
  const pdf = await runTogetherPdf(lines);
  const d = await readDocument(pdf, { ocr: false });
  const p = d.pages[0];
  t.deepEqual(p.repairs, ['run_together_words'], p.text);
  t.true(p.text.includes('YourStateFarmAgent'), p.text); // the trap, kept as the fallback when OCR is off
  t.is(p.source, 'text');
  t.deepEqual((await readTextLayer(pdf)).needOcr, [1]);
  const o = await readDocument(pdf);
  t.is(o.method, 'ocr');
  t.is(o.pages[0].source, 'ocr');
  t.deepEqual(o.pages[0].repairs, ['run_together_words']);
  // (This page really is printed without gaps, so OCR reads it joined too; on a real one the gaps are seen.)
  t.regex(o.pages[0].text, /Masonry/);
  // An ordinary page is not bypassed.
  t.false(runsWordsTogether(lines.map((l, i) => item(l, 50, 100 + i * 20, 300))));
});
