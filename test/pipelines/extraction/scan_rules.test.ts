// Rules for what a scan's OCR does to a page (issue 10), each on generated words: the cause, not the document.
import test from 'ava';
import { layoutPage, type TextItem } from '../../../pipelines/documents/layout.ts';
import { assertGrounded, certificateInsurerNames, collect, firstValues, ocrPage, textPage } from '../../helpers/pages.ts';
import { policyNumber } from '../../../pipelines/extraction/declarations.ts';
import type { Candidate } from '../../../pipelines/extraction/candidates.ts';
import { parties as partyFields } from '../../../pipelines/extraction/parties.ts';
import { ground, indexPages } from '../../../pipelines/extraction/grounding.ts';
import { extractCertificate } from '../../../pipelines/extraction/certificate.ts';
import { propertyLines } from '../../../pipelines/extraction/limits.ts';
import { joinDoubleReadWords, sharedLetters } from '../../../pipelines/extraction/ocr_cells.ts';
import { suspectRegions, mergeRereads } from '../../../pipelines/extraction/region_reread.ts';

const firstOf = (cs: Candidate[], pointer: string) => cs.find((c) => c.pointer === pointer);

test('property limits: a word that rules a row out counts only in the row, not in the notice printed in the next column', (t) => {
  const p = textPage([
    [68, 121, 'COVERAGE-A-DWELLING'],
    [314, 121, '$92,000'],
    [370, 121, 'In case of a loss under Section I, we'],
    [370, 131, 'cover only that part of each loss over'],
    [68, 141, 'COVERAGE-C-PERSONAL PROPERTY'],
    [313, 141, '$46,000'],
    [369, 141, 'the deductible stated.'],
    // A row of its own that names a ruled-out word before its amount is still not the limit.
    [68, 180, 'Personal Property Replacement Cost'],
    [313, 180, '$12,000'],
  ]);
  const got = collect((e) => propertyLines([p], e, new Set()));
  t.is(firstOf(got, '/property/personal_property')?.value, 46000);
  t.is(firstOf(got, '/property/dwelling')?.value, 92000);
});

test('property deductible: a table of deductibles by peril gives its "Other Losses" row, not the wind or hail one', (t) => {
  const p = ocrPage([
    [35, 424, 'DEDUCTIBLES', 8],
    [35, 452, 'Section I Deductible', 8],
    [486, 452, 'Deductible Amount', 8],
    [35, 467, 'Wind or Hail 3%', 8],
    [498, 466, '$', 8],
    [545, 467, '7,227', 8],
    [35, 479, 'Other Losses 2%', 8],
    [498, 478, '$', 8],
    [545, 479, '4818', 8],
  ]);
  const ded = firstOf(
    collect((e) => propertyLines([p], e, new Set())),
    '/property/deductible',
  );
  t.is(ded?.value, 4818);
  t.true(ground(ded!, indexPages([p])).ok);
  // "Other losses" in a sentence is not a row of such a table.
  const prose = textPage([[35, 100, 'Payment for other losses $2,000 is made under Section II']]);
  t.is(
    firstOf(
      collect((e) => propertyLines([prose], e, new Set())),
      '/property/deductible',
    )?.value,
    undefined,
  );
});

test('OCR: the end of a name read twice, under the next engine line too ("...Compan" and "pany"), is one word', (t) => {
  t.is(sharedLetters('Compan', 'pany'), 3);
  t.is(sharedLetters('Insurance', 'Company'), 0);
  // Engine line 1 holds the insured's name and most of insurer C's; line 2 the next address line, the INSURER C label
  // and the fragment read again.
  const p = ocrPage([
    [30, 60, 'CERTIFICATE OF LIABILITY INSURANCE', 8, 0],
    [22, 182, 'INSURED', 9, 1],
    [310, 186, 'INSURER B', 5, 1],
    [352, 183, 'Natona Insurance Company', 8, 1],
    [30, 192, 'Marrow Glassworks', 9, 2],
    [351, 194, 'Amer can Insurance Compan', 10, 2],
    [30, 201, '12 Ferrule Rd', 7, 3],
    [310, 197, 'INSURER C', 11, 3],
    [452, 196, 'pany', 6, 3],
    [310, 210, 'INSURER D', 5, 4],
    [352, 206, 'Fre Insurance Company', 8, 4],
  ]);
  // The layout did file them apart (else this test shows nothing) ...
  t.truthy(p.lines.find((l) => /INSURER C\s+pany/.test(l.text)));
  const fixed = joinDoubleReadWords(p);
  t.truthy(fixed.lines.find((l) => /Amer can Insurance Company/.test(l.text)));
  t.false(/\bpany\b/.test(fixed.text));
  const names = certificateInsurerNames([fixed]);
  // ... and INSURER C is the name beside it, whichever line OCR filed it in, with its thin glyphs restored.
  t.deepEqual(
    names.map((c) => c.value),
    ['National Insurance Company', 'American Insurance Company', 'Fire Insurance Company'],
  );
  assertGrounded(t, names, [fixed], (c) => String(c.value));
  // A text layer is never joined.
  const typed = textPage([
    [351, 194, 'Compan'],
    [380, 196, 'pany'],
  ]);
  t.is(joinDoubleReadWords(typed), typed);
});

test('mortgagee: "ISAQA/ATIMA" read from a scan is the fixed term ISAOA/ATIMA, and grounds on the scanned page', (t) => {
  const p = ocrPage([
    [305, 66, 'MORTGAGEE AND ADDITIONAL INTERESTS', 8],
    [305, 104, 'Mortgagee', 7],
    [305, 112, 'NEWREZ MORTGAGE LLC', 7],
    [306, 120, 'ISAQA/ATIMA', 7],
  ]);
  const cs = collect((e) => partyFields([p], e));
  const name = firstOf(cs, '/interested_parties/0/name')!;
  t.is(name.value, 'NEWREZ MORTGAGE LLC ISAOA/ATIMA');
  t.true(ground(name, indexPages([p])).ok);
  // On a text layer, look-alike glyphs are not folded: the value must be on the page as printed.
  const typed = textPage([[305, 112, 'NEWREZ MORTGAGE LLC ISAQA/ATIMA']]);
  t.false(ground({ ...name, page: 1 }, indexPages([typed])).ok);
});

test('reread places: a box as tall as two lines, a lost first word, an amount fragment; the reading is merged only when better', (t) => {
  const p = ocrPage([
    [21, 119, 'PRODUCER', 6, 0],
    [30, 129, 'YourCompany.com An', 20, 1],
    [30, 151, '22 Gore Corner Road Suite 1H', 7, 2],
    [30, 161, 'Mana NJ 07726', 7, 3],
    [305, 104, 'Mortgagee', 7, 4],
    [351, 112, 'MORTGAGE LLC', 7, 5],
    [306, 120, 'ISAOA/ATIMA', 7, 6],
    [419, 491, 'E.L. EACH ACCIDENT', 5, 7],
    [514, 493, ',000,', 2, 7],
    [419, 505, 'E.L. DISEASE - EA EMPLOYEE', 5, 8],
    [540, 504, '1,000,000', 7, 8],
  ]);
  // Lower confidence for the tall box, as OCR gives it.
  const tall = p.lines.flatMap((l) => l.cells).find((c) => c.text.startsWith('YourCompany'))!;
  tall.conf = 0.71;
  const s = suspectRegions(p);
  t.deepEqual(s.map((x) => `${x.kind}:${x.cell.text}`).sort(), ['amount_fragment:,000,', 'hidden_line:YourCompany.com An', 'lost_lead:MORTGAGE LLC']);
  // A lost word's place lies between the column's edge and the line's first word.
  const lead = s.find((x) => x.kind === 'lost_lead')!;
  t.true(lead.region.x < 306 && lead.region.x + lead.region.w <= 351, JSON.stringify(lead.region));
  const w = (x: number, y: number, text: string, h = 7, conf = 0.95): TextItem => ({ text, x, y, w: text.length * 4.4, h, source: 'ocr', conf });
  const words = s.map((x) =>
    x.kind === 'hidden_line'
      ? [w(30, 131, 'YourCompany.com'), w(107, 132, 'An'), w(31, 141, 'Network'), w(65, 141, 'Member')]
      : x.kind === 'lost_lead'
        ? [{ ...w(306, 111, 'NEWREZ'), w: 41 }, w(348, 110, '|', 9)]
        : [w(503, 496, '1,000,000'), w(511, 504, '1,000,0', 7, 0.7)],
  );
  const merged = mergeRereads(p, s, words)!;
  t.truthy(merged);
  const texts = merged.lines.map((l) => l.text);
  t.true(texts.includes('YourCompany.com An'), texts.join(' / '));
  t.true(texts.includes('Network Member'), texts.join(' / '));
  t.truthy(texts.find((l) => /^NEWREZ MORTGAGE LLC$/.test(l)));
  t.truthy(texts.find((l) => /E\.L\. EACH ACCIDENT\s+1,000,000/.test(l)));
  // The producer box now reads its two-line name.
  const cs = collect((e) => extractCertificate([{ ...merged, text: `CERTIFICATE OF LIABILITY INSURANCE\n${merged.text}` }], e));
  t.is(firstOf(cs, '/certificate/producer')?.value, 'YourCompany.com An Network Member');
  // Nothing better read (one row in the tall box, a low-confidence word, no whole amount): the page stays as it was.
  const worse = s.map((x) =>
    x.kind === 'hidden_line'
      ? [w(30, 131, 'YourCompany.com'), w(107, 132, 'An')]
      : x.kind === 'lost_lead'
        ? [w(306, 111, 'NEWREZ', 7, 0.3)]
        : [w(514, 493, '000')],
  );
  t.is(mergeRereads(p, s, worse), undefined);
  // A text-layer page is never a place to read again; nor a tall cell with a check mark in it.
  t.deepEqual(suspectRegions(textPage([[30, 129, 'YourCompany.com An']])), []);
  t.deepEqual(
    suspectRegions(
      ocrPage(
        [
          [36, 362, 'X POLICY', 13],
          [60, 380, 'OTHER', 6],
          [60, 390, 'LOC', 6],
        ],
        1,
        0.7,
      ),
    ),
    [],
  );
});

test('weak words: a name the engine read too weakly for the layout is read again at twice the size and put back in its line', (t) => {
  // A certificate holder box whose first line starts with words read at confidence 0.1 (kept out of the lines).
  const item = (x: number, y: number, text: string, conf: number, line: number): TextItem => ({
    text,
    x,
    y,
    w: text.length * 4.4,
    h: 7,
    source: 'ocr',
    conf,
    line,
  });
  const p = layoutPage(
    1,
    612,
    792,
    [
      item(22, 640, 'CERTIFICATE', 0.96, 0),
      item(74, 640, 'HOLDER', 0.96, 0),
      item(32, 651, 'Brightline', 0.1, 1),
      item(78, 651, 'Tools,Inc.', 0.08, 1),
      item(124, 651, '42', 0.96, 1),
      item(135, 651, 'Harbor', 0.95, 1),
      item(33, 662, 'View', 0.96, 2),
      item(53, 662, 'Rd.', 0.96, 2),
      item(68, 662, 'Unit', 0.95, 2),
      item(89, 662, '3', 0.95, 2),
      item(33, 673, 'Dayton', 0.96, 3),
      item(64, 673, 'OH', 0.96, 3),
      item(78, 673, '45402', 0.97, 3),
      item(310, 710, 'AUTHORIZED', 0.96, 4),
    ],
    'ocr',
  );
  t.deepEqual(
    p.weak?.map((w) => w.text),
    ['Brightline', 'Tools,Inc.'],
  );
  t.false(p.text.includes('Brightline'));
  const s = suspectRegions(p).filter((x) => x.kind === 'weak_words');
  t.is(s.length, 1);
  t.is(s[0].scale, 2);
  // The cut-out takes in the line's next words ("42 Harbor"), a word-gap to the right, and only this row's height.
  const r = s[0].region;
  t.true(r.x < 32 && r.x + r.w > 135 + 6 * 4.4 - 1 && r.y > 645 && r.y + r.h < 662, JSON.stringify(r));
  const w = (x: number, text: string, conf = 0.9): TextItem => ({ text, x, y: 651.5, w: text.length * 4.4, h: 6.6, source: 'ocr', conf });
  const merged = mergeRereads(p, s, [[w(32, 'Brightline'), w(78, 'Tools,Inc.', 0.87), w(124, '42', 0.97), w(135, 'Harbor', 0.96)]])!;
  t.truthy(merged);
  // "42 Harbor" is not added twice: the read name joins the cell already there, as the layout would have made it.
  t.true(
    merged.lines.some((l) => l.text === 'Brightline Tools,Inc. 42 Harbor'),
    merged.text,
  );
  const cs = collect((e) => extractCertificate([{ ...merged, text: `CERTIFICATE OF LIABILITY INSURANCE\n${merged.text}` }], e));
  t.is(firstOf(cs, '/interested_parties/0/name')?.value, 'Brightline Tools,Inc.');
  t.is(firstOf(cs, '/interested_parties/0/address')?.value, '42 Harbor View Rd. Unit 3, Dayton OH 45402');
  // Read again no better (still weak): the page stays as it was.
  t.is(mergeRereads(p, s, [[w(32, 'Brightline', 0.3), w(78, 'Tools,Inc.', 0.2)]]), undefined);
  // A word read again must be read clearly (0.8): 0.7 is a guess at what the first reading could not read.
  t.is(mergeRereads(p, s, [[w(32, 'Brightline', 0.7), w(78, 'Tools,Inc.', 0.7)]]), undefined);
});

test('a name line that runs on into the street ("Acme, Inc. 8 Three" over "Oak Rd.") ends at its business suffix', (t) => {
  const page = (first: string) =>
    textPage([
      [20, 100, 'CERTIFICATE OF LIABILITY INSURANCE'],
      [22, 640, 'CERTIFICATE HOLDER'],
      [32, 652, first],
      [32, 664, 'Pond Lane'],
      [32, 676, 'Albany NY 12207'],
      [310, 720, 'AUTHORIZED REPRESENTATIVE'],
    ]);
  const holder = (first: string) => {
    const cs = collect((e) => extractCertificate([page(first)], e));
    return [firstOf(cs, '/interested_parties/0/name')?.value, firstOf(cs, '/interested_parties/0/address')?.value];
  };
  t.deepEqual(holder('Northgate Bakery Co. 17 Mill'), ['Northgate Bakery Co.', '17 Mill Pond Lane, Albany NY 12207']);
  t.deepEqual(holder('Kestrel Freight, LLC 2200 Dock'), ['Kestrel Freight, LLC', '2200 Dock Pond Lane, Albany NY 12207']);
  // A number inside a name is not a street: no suffix before it, or another name after it.
  t.is(holder('Route 9 Diner LLC')[0], 'Route 9 Diner LLC');
  t.is(holder('Acme Co. 3 Holdings LLC')[0], 'Acme Co. 3 Holdings LLC');
});

test('digit count: a number a digit wider than its width allows is read again at twice the size; only a dropped digit is taken', (t) => {
  // A policy-number column: two confident 7-digit numbers 23.8 pt wide, and an 8-digit reading in the same width.
  const item = (y: number, text: string, conf: number, w = 23.8): TextItem => ({ text, x: 261.5, y, w, h: 5, source: 'ocr', conf, line: y });
  const build = (third: TextItem) =>
    layoutPage(1, 612, 792, [item(288, '6021457', 0.96), item(351, '5310982', 0.93), third, { ...item(429, 'CLAIMS-MADE', 0.95), x: 60, w: 40 }], 'ocr');
  const p = build(item(429, '40718263', 0.76, 24));
  const s = suspectRegions(p).filter((x) => x.kind === 'digit_count');
  t.deepEqual(
    s.map((x) => [x.cell.text, x.scale]),
    [['40718263', 2]],
  );
  const w = (text: string, conf: number): TextItem => ({ text, x: 261.6, y: 429.2, w: 23.9, h: 5, source: 'ocr', conf });
  const merged = mergeRereads(p, s, [[w('4071263', 0.92)]]);
  t.true(
    merged?.lines.some((l) => l.text === 'CLAIMS-MADE  4071263'),
    merged?.text,
  );
  // Not taken: another digit changed too, a weak reading, the same count again.
  t.is(mergeRereads(p, s, [[w('5071263', 0.96)]]), undefined);
  t.is(mergeRereads(p, s, [[w('4071263', 0.7)]]), undefined);
  t.is(mergeRereads(p, s, [[w('40718263', 0.95)]]), undefined);
  // Not a place: a confident reading, or a width that fits its digits.
  t.deepEqual(
    suspectRegions(build(item(429, '40718263', 0.9, 24))).filter((x) => x.kind === 'digit_count'),
    [],
  );
  t.deepEqual(
    suspectRegions(build(item(429, '40718263', 0.76, 27.2))).filter((x) => x.kind === 'digit_count'),
    [],
  );
});

test('OCR: a "#" read on its own ("POLICY #" under a policy number) stays in its caption; a doubtful one is still a speck', (t) => {
  const words = (hashConf: number): TextItem[] => [
    { text: 'BOP54830561', x: 331, y: 61, w: 45, h: 7, source: 'ocr', conf: 0.9, line: 0 },
    { text: 'POLICY', x: 331, y: 76, w: 21, h: 5, source: 'ocr', conf: 0.93, line: 1 },
    { text: '#', x: 355, y: 76, w: 4, h: 5, source: 'ocr', conf: hashConf, line: 1 },
  ];
  const sure = layoutPage(1, 612, 792, words(0.93), 'ocr');
  t.is(sure.lines[1].text, 'POLICY #');
  const doubtful = layoutPage(1, 612, 792, words(0.4), 'ocr');
  t.is(doubtful.lines[1].text, 'POLICY');
});

test('OCR: a "#" read with its bracket ("(Policy #)" right of its value) stays in its caption', (t) => {
  const page = layoutPage(
    1,
    612,
    792,
    [
      { text: 'PKG', x: 66, y: 85, w: 18, h: 6, source: 'ocr', conf: 0.95, line: 0 },
      { text: '54474366', x: 88, y: 85, w: 40, h: 6, source: 'ocr', conf: 0.95, line: 0 },
      { text: '(Policy', x: 339, y: 85.2, w: 27, h: 6.2, source: 'ocr', conf: 0.92, line: 1 },
      { text: '#)', x: 371, y: 85.5, w: 6, h: 5, source: 'ocr', conf: 0.88, line: 1 },
    ],
    'ocr',
  );
  t.is(page.lines[0].text, 'PKG 54474366  (Policy #)');
  t.is(firstValues((emit) => policyNumber([page], emit))['/policy/policy_number'], 'PKG 54474366');
});

test('OCR: a caption under its value one type-size line below is read although OCR boxes are only ink high', (t) => {
  // 8 pt type: the value at the top of its box, the caption 14.5 pt lower; OCR's boxes are about 5.5 pt high.
  const page = ocrPage([
    [53, 104, 'CGL-16036456', 5.9, 0],
    [322, 104, '08/10/2025 to 08/10/2026', 5.7, 0],
    [53, 118.5, 'POLICY NO.', 4.3, 1],
    [322, 118.5, 'POLICY TERM', 4.3, 1],
    [53, 141, 'Maple & Vine Florists LLC', 6.8, 2],
  ]);
  t.is(firstValues((emit) => policyNumber([page], emit))['/policy/policy_number'], 'CGL-16036456');
});

test('OCR: a line in a fixed-pitch type keeps its words in one cell though its word spaces are wider than a cell gap', (t) => {
  // Courier 9 as OCR boxed it on a 240 dpi scan: 5.4 pt a letter, ink a little narrower than the letters' cells
  // (a comma's cell is mostly blank), 6 pt tall.
  const pitch = 5.4;
  const line = (words: string[], x0: number, y: number, n: number, per = pitch): TextItem[] => {
    let x = x0;
    return words.map((text) => {
      const w: TextItem = { text, x: x + 0.4, y, w: text.length * per - (text.endsWith(',') ? 2.2 : 0.8), h: 6, source: 'ocr', conf: 0.95, line: n };
      x += (text.length + 1) * per;
      return w;
    });
  };
  const courier = layoutPage(1, 612, 792, [...line(['Tulsa,', 'OK', '74103'], 50, 172, 0), ...line(['45', 'Market', 'St'], 50, 160, 1)], 'ocr');
  t.deepEqual(
    courier.lines.map((l) => l.cells.map((c) => c.text)),
    [['45 Market St'], ['Tulsa, OK 74103']],
  );
  // Proportional type whose widths do not grow by one pitch a letter: a gap wider than a cell gap still splits.
  const words: TextItem[] = [
    { text: 'INSURED', x: 50, y: 100, w: 34, h: 6, source: 'ocr', conf: 0.95, line: 0 },
    { text: 'Illinois', x: 92, y: 100, w: 22, h: 6, source: 'ocr', conf: 0.95, line: 0 },
    { text: 'WMW', x: 122, y: 100, w: 21, h: 6, source: 'ocr', conf: 0.95, line: 0 },
  ];
  t.deepEqual(
    layoutPage(1, 612, 792, words, 'ocr').lines[0].cells.map((c) => c.text),
    ['INSURED', 'Illinois', 'WMW'],
  );
});

test('OCR re-read: a policy period read as its last date only, well right of its caption, is read again from the caption', (t) => {
  const p = ocrPage([
    [40, 152, 'POLICY', 10],
    [72, 152, 'NUMBER', 10],
    [198, 152, 'POLICY', 10],
    [230, 152, 'PERIOD', 10],
    [40, 162, 'NFB', 12],
    [58, 162, '600-21874', 12],
    [255, 162, '05/20/2026', 12],
  ]);
  const s = suspectRegions(p).filter((x) => x.kind === 'period_start');
  t.is(s.length, 1);
  t.true(s[0].region.x <= 198 && s[0].region.x + s[0].region.w >= 255 + 44, JSON.stringify(s[0].region));
  const w = (x: number, text: string, conf: number): TextItem => ({ text, x, y: 162, w: text.length * 4.4, h: 12, source: 'ocr', conf });
  // The first date read unsurely, a year before the other: two readings that agree.
  const merged = mergeRereads(p, s, [[w(196, '05/20/2025', 0.06), w(244, '-', 0.9), w(255, '05/20/2026', 0.96)]])!;
  t.truthy(merged.lines.find((l) => /05\/20\/2025 - 05\/20\/2026/.test(l.text)));
  // Read unsurely and not a term apart: the page stays as it was; nor a period read whole.
  t.is(mergeRereads(p, s, [[w(196, '05/29/2025', 0.06), w(244, '-', 0.9), w(255, '05/20/2026', 0.96)]]), undefined);
  t.deepEqual(
    suspectRegions(
      ocrPage([
        [198, 152, 'POLICY PERIOD', 10],
        [198, 162, '05/20/2025 - 05/20/2026', 12],
      ]),
    ).filter((x) => x.kind === 'period_start'),
    [],
  );
});
