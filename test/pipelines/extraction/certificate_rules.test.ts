// Certificate rules on generated words: the coverage grid, attached remarks schedules, producer and insurer boxes,
// and what a scan's OCR does to them.
import test from 'ava';
import { layoutPage, type TextItem, type PageText } from '../../../pipelines/documents/layout.ts';
import { textPage as page, assertGrounded, certificateInsurerNames, collect } from '../../helpers/pages.ts';
import type { Candidate } from '../../../pipelines/extraction/candidates.ts';
import { ground, indexPages } from '../../../pipelines/extraction/grounding.ts';
import { extractCertificate } from '../../../pipelines/extraction/certificate.ts';

function first(cs: Candidate[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const c of cs) if (!(c.pointer in out)) out[c.pointer] = c.value;
  return out;
}

test('certificate grid: a liability row with its limits in one box ("Occ / Agg  $1M/$2M") gives each occurrence and aggregate', (t) => {
  const p = page([
    [128, 31, 'CERTIFICATE OF PROPERTY INSURANCE'],
    [20, 313, 'INSR'],
    [300, 313, 'POLICY EFFECTIVE'],
    [363, 313, 'POLICY EXPIRATION'],
    [66, 317, 'TYPE OF INSURANCE'],
    [202, 317, 'POLICY NUMBER'],
    [438, 317, 'COVERED PROPERTY'],
    [545, 317, 'LIMITS'],
    [21, 320, 'LTR'],
    [298, 320, 'DATE (MM/DD/YYYY) DATE (MM/DD/YYYY)'],
    [25, 499, 'A'],
    [54, 499, 'CRIME'],
    [161, 499, 'ABCD777777777'],
    [312, 499, '12/1/2021'],
    [377, 499, '12/1/2022'],
    [429, 499, 'X Emp. Dishonesty'],
    [518, 499, '$ 1,500,000'],
    [25, 559, 'A'],
    [39, 559, 'General Liability'],
    [161, 559, 'ABC88888888'],
    [312, 559, '12/1/2021'],
    [377, 559, '12/1/2022'],
    [429, 559, 'X Occ / Agg'],
    [518, 559, '$ 1M/$2M'],
    [22, 650, 'CERTIFICATE HOLDER'],
  ]);
  const r = first(collect((e) => extractCertificate([p], e)));
  const gl = Object.keys(r).find((k) => /coverages\/\d+\/type$/.test(k) && r[k] === 'general_liability')!;
  t.truthy(gl);
  const at = gl.replace(/type$/, '');
  t.is(r[`${at}policy_number`], 'ABC88888888');
  t.is(r[`${at}each_occurrence`], 1000000);
  t.is(r[`${at}general_aggregate`], 2000000);
  // The crime row is not a liability row: no occurrence limit borrowed.
  const crime = Object.keys(r).find((k) => /coverages\/\d+\/policy_number$/.test(k) && r[k] === 'ABCD777777777')!;
  t.is(r[crime.replace(/policy_number$/, 'each_occurrence')], null);
});

test('certificate: liability limits listed on an attached ACORD 101 make a general liability coverage of the policy in its box', (t) => {
  const cert = page([
    [128, 31, 'CERTIFICATE OF PROPERTY INSURANCE'],
    [20, 325, 'INSR'],
    [300, 325, 'POLICY EFFECTIVE'],
    [363, 325, 'POLICY EXPIRATION'],
    [66, 329, 'TYPE OF INSURANCE'],
    [202, 329, 'POLICY NUMBER'],
    [438, 329, 'COVERED PROPERTY'],
    [545, 329, 'LIMITS'],
    [54, 390, 'SPECIAL'],
    [443, 390, 'RENTAL VALUE'],
    [163, 396, '57-TX-8812-4'],
    [308, 396, '06/18/2015'],
    [372, 396, '06/18/2016'],
    [54, 402, 'EARTHQUAKE'],
    [443, 402, 'BLANKET BUILDING'],
    [545, 402, '$9,276,400'],
    [22, 649, 'CERTIFICATE HOLDER'],
  ]);
  const remarks = page(
    [
      [174, 56, 'ADDITIONAL REMARKS SCHEDULE'],
      [22, 104, 'POLICY NUMBER'],
      [23, 114, '57-TX-8812-4'],
      [22, 370, 'Coverages:'],
      [29, 384, 'Business Liability'],
      [233, 384, '$3,000,000'],
      [29, 396, 'Medical Payments'],
      [249, 396, '$5,000'],
      [29, 421, 'General Aggregate'],
      [233, 421, '$6,000,000'],
    ],
    2,
  );
  const cs = collect((e) => extractCertificate([cert, remarks], e));
  const r = first(cs);
  const gl = Object.keys(r).find((k) => /coverages\/\d+\/type$/.test(k) && r[k] === 'general_liability')!;
  t.truthy(gl);
  const at = gl.replace(/type$/, '');
  t.is(r[`${at}policy_number`], '57-TX-8812-4');
  t.is(r[`${at}effective_date`], '2015-06-18');
  t.is(r[`${at}expiration_date`], '2016-06-18');
  t.is(r[`${at}each_occurrence`], 3000000);
  t.is(r[`${at}general_aggregate`], 6000000);
  // Every value grounds on the page it cites.
  assertGrounded(
    t,
    cs.filter((c) => c.pointer.startsWith(at) && c.value !== null),
    [cert, remarks],
  );
  // Without the schedule, no liability coverage is invented.
  t.false(Object.values(first(collect((e) => extractCertificate([cert], e)))).includes('general_liability'));
});

test("certificate producer: a name the right column's small captions chained to the street line below is read by geometry", (t) => {
  // The PRODUCER box's 9 pt lines touch; the CONTACT column's 6 pt captions ("PHONE", "(A/C, No, Ext):") sit between
  // their baselines, so line assembly puts the name, its second word-run and the street on one line.
  const it = (x: number, y: number, text: string, h = 9): TextItem => ({ text, x, y, w: text.length * 4.4, h, source: 'text' });
  const items: TextItem[] = [
    it(22, 98, 'PRODUCER', 5.9),
    it(310, 95.5, 'CONTACT', 5.9),
    it(356, 97, 'Odile Brant', 8),
    it(23, 104, 'Larkspur Risk'),
    it(88, 104, 'Partners'),
    it(130, 104, 'Pacific, Inc.'),
    it(310, 108, 'PHONE', 5.9),
    it(367, 109, '555-201-7788', 8),
    it(486, 107.5, 'FAX', 5.9),
    it(486, 113, '(A/C, No):', 5.9),
    it(331, 113.5, '(A/C, No, Ext):', 5.9),
    it(23, 113.1, '40 Quillon Ave'),
    it(23, 122, 'Fresno CA 93650'),
    it(22, 158, 'INSURED', 5.9),
    it(310, 157, 'INSURER A : Tidewell Indemnity Company', 9.5),
    it(23, 163, 'Marrow Glassworks'),
    it(23, 172, '12 Ferrule Rd'),
    it(23, 181, 'Fresno CA 93651'),
  ];
  const p = layoutPage(1, 612, 792, items, 'text');
  // The layout did chain them (else this test shows nothing) ...
  t.true(p.lines.some((l) => /Larkspur Risk.*40 Quillon/.test(l.text)));
  const cs = collect((e) => extractCertificate([{ ...p, text: `CERTIFICATE OF LIABILITY INSURANCE\n${p.text}` }], e));
  const producer = cs.find((c) => c.pointer === '/certificate/producer')!;
  // ... and the box reads the name alone, its two runs joined, and it grounds on the page.
  t.is(producer.value, 'Larkspur Risk Partners Pacific, Inc.');
  t.true(ground(producer, indexPages([p])).ok);
  t.is(first(cs)['/certificate/insured'], 'Marrow Glassworks');
  // OCR words keep to the engine's lines (a skewed scan's words drift within one): no OCR cell is kept split.
  const ocr = layoutPage(
    1,
    612,
    792,
    items.map((i) => ({ ...i, source: 'ocr' as const, conf: 0.9 })),
    'ocr',
  );
  t.false(ocr.lines.some((l) => l.cells.some((c) => c.items)));
});

test('certificate insurers read by OCR from a low-resolution scan that lost its thin glyphs get their known words back, and ground', (t) => {
  const it = (x: number, y: number, text: string): TextItem => ({ text, x, y, w: text.length * 4.4, h: 9, source: 'ocr', conf: 0.9 });
  const items: TextItem[] = [
    it(22, 90, 'CERTIFICATE OF LIABILITY INSURANCE'),
    it(310, 150, 'INSURER A : Quarry Mutua Casua ty Company'),
    it(310, 162, 'INSURER B : Natona Fre Insurance Company'),
    it(310, 174, 'INSURER C : Brindle Wick Underwriters'),
  ];
  const p = layoutPage(1, 612, 792, items, 'ocr');
  const names = certificateInsurerNames([p]);
  t.deepEqual(
    names.map((c) => c.value),
    // "Mutua" keeps its glyphs but its last: known words are restored only where a lost i, l or 1 explains them.
    ['Quarry Mutual Casualty Company', 'National Fire Insurance Company', 'Brindle Wick Underwriters'],
  );
  assertGrounded(t, names, [p], (c) => String(c.value));
  // A text layer is never corrected: its words are what is printed.
  const typed = layoutPage(
    1,
    612,
    792,
    items.map((i) => ({ ...i, source: 'text' as const, conf: undefined })),
    'text',
  );
  const asTyped = certificateInsurerNames([typed]);
  t.is(asTyped[0].value, 'Quarry Mutua Casua ty Company');
});

test('certificate auto and WC rows of a scan: the combined single limit with its caption in two rows or lost, "EL EACH ACC DENT", a box border read into "N/A|"', (t) => {
  const header: [number, number, string][] = [
    [128, 31, 'CERTIFICATE OF LIABILITY INSURANCE'],
    [20, 313, 'INSR'],
    [300, 313, 'POLICY EFF'],
    [363, 313, 'POLICY EXP'],
    [21, 320, 'LTR'],
    [66, 320, 'TYPE OF INSURANCE'],
    [124, 320, 'INSD'],
    [152, 320, 'WVD'],
    [202, 320, 'POLICY NUMBER'],
    [298, 320, '(MM/DD/YYYY) (MM/DD/YYYY)'],
    [470, 320, 'LIMITS'],
  ];
  const wc: [number, number, string][] = [
    [40, 420, "WORKERS COMPENSATION AND EMPLOYERS' LIABILITY"],
    [25, 432, 'B'],
    // The ADDL INSD box of a WC row says N/A; the scan read its right border into it.
    [123, 432, 'N/A|'],
    [156, 432, 'Y'],
    [180, 432, 'WCX4417002'],
    [305, 432, '03/15/2024'],
    [368, 432, '03/15/2025'],
    [430, 432, 'EL EACH ACC DENT'],
    [520, 432, '$ 500 000'],
  ];
  // The caption in two rows of its box, the first above the policy row.
  const split = page([
    ...header,
    [430, 356, 'COMBINED SINGLE'],
    [25, 368, 'A'],
    [40, 368, 'AUTOMOBILE LIABILITY'],
    [161, 368, 'AUT7730041'],
    [305, 368, '03/15/2024'],
    [368, 368, '03/15/2025'],
    [430, 368, '(Ea accident)'],
    [520, 368, '|S 750,000'],
    [40, 380, 'ANY AUTO'],
    [430, 380, 'BODILY INJURY (Per person)'],
    ...wc,
  ]);
  const values = (p: PageText) => {
    const r = first(collect((e) => extractCertificate([p], e)));
    const key = (type: string) =>
      Object.keys(r)
        .find((k) => /coverages\/\d+\/type$/.test(k) && r[k] === type)!
        .replace(/type$/, '');
    const w = key('workers_compensation');
    return {
      csl: r[`${key('automobile_liability')}combined_single_limit`],
      el: r[`${w}el_each_accident`],
      addl: r[`${w}additional_insured`],
      subr: r[`${w}subrogation_waived`],
    };
  };
  t.deepEqual(values(split), { csl: 750_000, el: 500_000, addl: null, subr: true });
  // The caption lost altogether: the one amount on the section's caption line is its first box.
  const lost = page([
    ...header,
    [40, 356, 'AUTOMOBILE LIABILITY'],
    [520, 356, '$750,000'],
    [25, 368, 'A'],
    [40, 368, 'ANY AUTO'],
    [161, 368, 'AUT7730041'],
    [305, 368, '03/15/2024'],
    [368, 368, '03/15/2025'],
    [430, 368, 'BODILY INJURY (Per person)'],
    ...wc,
  ]);
  t.is(values(lost).csl, 750_000);
});

test('certificate: a row of another line (professional liability) with "$2,000,000 Occurrence  $4,000,000 Aggregate" in it gives its limits', (t) => {
  const p = page([
    [128, 31, 'CERTIFICATE OF LIABILITY INSURANCE'],
    [20, 313, 'INSR'],
    [300, 313, 'POLICY EFF'],
    [363, 313, 'POLICY EXP'],
    [21, 320, 'LTR'],
    [66, 320, 'TYPE OF INSURANCE'],
    [202, 320, 'POLICY NUMBER'],
    [298, 320, '(MM/DD/YYYY) (MM/DD/YYYY)'],
    [470, 320, 'LIMITS'],
    [25, 520, 'C'],
    [40, 520, 'Professional Liability'],
    [161, 520, 'PLX2280117'],
    [305, 520, '06/01/2024'],
    [368, 520, '06/01/2025'],
    [420, 520, '$2,000,000 Occurrence'],
    [520, 520, '$4,000,000 Aggregate'],
    [22, 650, 'CERTIFICATE HOLDER'],
  ]);
  const r = first(collect((e) => extractCertificate([p], e)));
  const k = Object.keys(r)
    .find((x) => /coverages\/\d+\/policy_number$/.test(x) && r[x] === 'PLX2280117')!
    .replace(/policy_number$/, '');
  t.is(r[`${k}type`], 'other');
  t.is(r[`${k}each_occurrence`], 2_000_000);
  t.is(r[`${k}general_aggregate`], 4_000_000);
});

test('certificate WC row of a scan: the Y/N box of the type column and the ADDL INSD answer read into one cell are two marks', (t) => {
  const header: [number, number, string][] = [
    [128, 31, 'CERTIFICATE OF LIABILITY INSURANCE'],
    [20, 313, 'INSR'],
    [300, 313, 'POLICY EFF'],
    [363, 313, 'POLICY EXP'],
    [21, 320, 'LTR'],
    [40, 320, 'TYPE OF INSURANCE'],
    [124, 320, 'INSD'],
    [152, 320, 'WVD'],
    [202, 320, 'POLICY NUMBER'],
    [298, 320, '(MM/DD/YYYY) (MM/DD/YYYY)'],
    [470, 320, 'LIMITS'],
  ];
  const wc = (answers: string) =>
    page([
      ...header,
      [40, 420, "WORKERS COMPENSATION AND EMPLOYERS' LIABILITY"],
      [25, 432, 'B'],
      [40, 432, 'EXCLUDED?'],
      // "[N]" answers the type column's question; the ADDL INSD box right of it a word-gap away.
      [104, 432, answers],
      [180, 432, 'WCX4417002'],
      [305, 432, '03/15/2024'],
      [368, 432, '03/15/2025'],
      [430, 432, 'E.L. EACH ACCIDENT'],
      [520, 432, '$ 500,000'],
    ]);
  const addl = (p: PageText) => {
    const r = first(collect((e) => extractCertificate([p], e)));
    const k = Object.keys(r).find((x) => /coverages\/\d+\/type$/.test(x) && r[x] === 'workers_compensation')!;
    return r[k.replace(/type$/, 'additional_insured')];
  };
  t.is(addl(wc('[N] N/A')), null, 'N/A: not asked');
  t.is(addl(wc('[N] Y')), true);
  // A cell with other words is not split into marks.
  t.is(addl(wc('[N] Note')), false);
});

test('certificate boxes: the trade name on the line under a name that ends in its suffix ("… LLC" / "dba …") is part of the name; another second line less surely', (t) => {
  const p = page([
    [170, 26, 'CERTIFICATE OF LIABILITY INSURANCE'],
    [38, 68, 'PRODUCER'],
    [44, 78, 'Keystone Commercial Insurance Group'],
    [44, 90, 'PO Box 4418'],
    [44, 102, 'Harrisburg, PA 17111'],
    [38, 138, 'INSURED'],
    [44, 150, 'Brightline Mechanical Contractors, LLC'],
    [44, 161, 'dba Brightline HVAC'],
    [44, 172, '77 Furnace Street'],
    [44, 183, 'Lancaster, PA 17602'],
    [36, 206, 'COVERAGES'],
    [38, 600, 'CERTIFICATE HOLDER'],
    [48, 614, 'City of Ventura'],
    [48, 625, 'Public Works Department'],
    [48, 636, '501 Poli Street'],
    [48, 647, 'Ventura, CA 93001'],
  ]);
  const cs = collect((e) => extractCertificate([p], e));
  const r = first(cs);
  const conf = (k: string) => cs.find((c) => c.pointer === k)!.confidence;
  t.is(r['/certificate/insured'], 'Brightline Mechanical Contractors, LLC dba Brightline HVAC');
  t.is(r['/policyholder/address'], '77 Furnace Street, Lancaster, PA 17602');
  t.true(conf('/certificate/insured') >= 0.9);
  // A second line that is no trade name may be the name's or another thing's (a department): the name, less surely.
  t.is(r['/certificate/certificate_holder'], 'City of Ventura Public Works Department');
  t.true(conf('/certificate/certificate_holder') < 0.9);
  t.true(conf('/interested_parties/0/name') < 0.9);
});

test('certificate grid of a scan that lost the expiration column and read "INSR TYPE OF INSURANCE" as one cell: the rows, less surely, with their letters', (t) => {
  const p = page(
    [
      [170, 26, 'CERTIFICATE OF LIABILITY INSURANCE'],
      [310, 110, 'INSURER A : Show-Me Casualty Insurance Company', 180],
      [310, 123, 'INSURER B : Riverbend Workers Mutual', 150],
      [50, 238, 'INSR TYPE OF INSURANCE', 92],
      [195, 238, 'ADDL SUBR', 30],
      [234, 238, 'POLICY NUMBER', 50],
      [313, 238, 'POLICY EFF', 35],
      [360, 238, 'POLICY EXP', 35],
      [409, 238, 'LIMITS', 22],
      [50, 245, 'LTR'],
      [195, 245, 'INSD WVD', 30],
      [54, 260, 'A'],
      [68, 260, 'X COMMERCIAL GENERAL LIABILITY', 110],
      [200, 260, 'X'],
      [218, 260, 'X'],
      [234, 260, 'SMC 0044127', 45],
      [313, 260, '12/15/2025', 38],
      [409, 260, 'EACH OCCURRENCE', 60],
      [539, 260, '$ 1,000,000'],
      [409, 269, 'GENERAL AGGREGATE', 70],
      [539, 269, '$ 2,000,000'],
      [54, 309, 'B'],
      [67, 309, 'WORKERS COMPENSATION', 80],
      [234, 309, 'RWM-WC-339012', 52],
      [313, 309, '12/15/2025', 38],
      [409, 309, 'X PER STATUTE', 50],
      [409, 317, 'E.L. EACH ACCIDENT', 68],
      [545, 317, '$ 500,000'],
      [50, 404, 'CERTIFICATE HOLDER'],
    ],
    1,
    { h: 7, source: 'ocr' },
  );
  const cs = collect((e) => extractCertificate([p], e));
  const r = first(cs);
  t.is(r['/certificate/coverages/0/policy_number'], 'SMC 0044127');
  t.is(r['/certificate/coverages/0/insurer_letter'], 'A');
  t.is(r['/certificate/coverages/0/effective_date'], '2025-12-15');
  t.is(r['/certificate/coverages/0/expiration_date'], null);
  t.is(r['/certificate/coverages/0/each_occurrence'], 1000000);
  t.is(r['/certificate/coverages/1/type'], 'workers_compensation');
  t.is(r['/certificate/coverages/1/insurer_letter'], 'B');
  t.is(r['/certificate/coverages/1/el_each_accident'], 500000);
  t.true(cs.find((c) => c.pointer === '/certificate/coverages/0/policy_number')!.confidence < 0.9);
});

test('certificate insurers of a scan that lost some "INSURER X :" captions: those rows take their letters by their place in the list', (t) => {
  const p = page(
    [
      [178, 29, 'CERTIFICATE OF LIABILITY INSURANCE', 180],
      [47, 69, 'PRODUCER', 40],
      [345, 100, 'INSURER(S) AFFORDING COVERAGE', 120],
      [542, 100, 'NAIC #', 25],
      [360, 110, 'Allegheny Valley Casualty Company', 130],
      [541, 110, '41238', 22],
      [315, 123, 'INSURER', 30],
      [360, 123, 'Susquehanna Mutual Insurance Company', 140],
      [541, 123, '20168', 22],
      [315, 136, 'INSURER C', 38],
      [315, 148, 'INSURER', 30],
    ],
    1,
    { h: 7, source: 'ocr' },
  );
  const cs = collect((e) => extractCertificate([p], e));
  const names: Record<string, unknown> = {};
  for (const c of cs) {
    const m = /^\/certificate\/insurers\/(\d+)\/letter$/.exec(c.pointer);
    if (m) names[String(c.value)] = cs.find((x) => x.pointer === `/certificate/insurers/${m[1]}/name`)?.value;
  }
  t.is(names.A, 'Allegheny Valley Casualty Company');
  t.is(names.B, 'Susquehanna Mutual Insurance Company');
  const a = cs.find((c) => c.pointer.endsWith('/name') && c.value === 'Allegheny Valley Casualty Company')!;
  t.true(a.confidence < 0.9);
});
