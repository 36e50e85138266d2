// Field rules found on real declarations (issue 10), each on a generated page: the cause, not the document.
import test from 'ava';
import { layoutPage, type TextItem, type PageText } from '../../../pipelines/documents/layout.ts';
import { textPage as page, assertGrounded, collect } from '../../helpers/pages.ts';
import type { Candidate } from '../../../pipelines/extraction/candidates.ts';
import { extractByRules } from '../../../pipelines/extraction/rules.ts';
import { autoFields, liabilityFields, policyNumber } from '../../../pipelines/extraction/declarations.ts';
import { parties as partyFields } from '../../../pipelines/extraction/parties.ts';
import { ground, indexPages } from '../../../pipelines/extraction/grounding.ts';
import { findNamedInsured } from '../../../pipelines/extraction/names.ts';
import { buildExtractedData } from '../../../pipelines/extraction/build.ts';
import { propertyLines } from '../../../pipelines/extraction/limits.ts';
import { emptyExtractedData } from '../../../pipelines/extraction/schema.ts';
import { scoreAgainstLabel } from '../../../pipelines/extraction/labels.ts';

function first(cs: Candidate[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const c of cs) if (!(c.pointer in out)) out[c.pointer] = c.value;
  return out;
}

test('vehicles: a VIN as printed on anonymised pages (an O inside, 16 characters) is read under a VIN header, after "VIN:", or on a year-make line', (t) => {
  const p = page([
    [36, 170, 'Vehicle covered'],
    [204, 170, 'Identification Number (VIN)'],
    [36, 181, '2021 Kia Soul'],
    [204, 181, 'JM1BPA9OXL7215530'],
    [36, 300, '2014 DODGE DURANGO 4 DOOR WAGON'],
    [36, 313, 'VIN: 3FAHP0HINR418826'],
    // Not a VIN: a 16-character reference with no VIN context.
    [36, 400, 'Reference 12345678ABCDEFGH'],
  ]);
  const r = first(collect((e) => autoFields([p], [], e)));
  t.is(r['/vehicles/0/vin'], 'JM1BPA9OXL7215530');
  t.is(r['/vehicles/0/year'], 2021);
  t.is(r['/vehicles/0/make'], 'Kia');
  t.is(r['/vehicles/1/vin'], '3FAHP0HINR418826');
  t.is(r['/vehicles/1/year'], 2014);
  t.is(r['/vehicles/1/make'], 'DODGE');
  t.false('/vehicles/2/vin' in r);
});

test('vehicles: with the VIN redacted, a year-and-make line is still a vehicle, kept in the record and scored by its place', (t) => {
  const p = page([
    [79, 313, 'DORA J PEMBERTON'],
    [252, 313, '08/25/1984'],
    [79, 445, '2011 CHEV CRUZE LT/CRUZE'],
    [475, 445, '001'],
    [504, 445, '$ 623.00'],
    // A year followed by a word that is not a make is not a vehicle.
    [79, 500, '2011 Annual Review'],
  ]);
  const cs = collect((e) => autoFields([p], [], e));
  const r = first(cs);
  t.is(r['/vehicles/0/year'], 2011);
  t.is(r['/vehicles/0/make'], 'CHEV');
  t.is(r['/vehicles/0/vin'], null);
  t.false('/vehicles/1/year' in r);
  const built = buildExtractedData('personal_auto', cs);
  t.deepEqual(built.data.vehicles, [{ year: 2011, make: 'CHEV', model: 'CRUZE LT/CRUZE', vin: null }]);
  // The scorer matches a label vehicle without a VIN to the extracted vehicle at the same place (that has none either).
  const label = { file: 'x.pdf', doc_kind: 'auto_dec', auto: { vehicles: [{ year: 2011, make: 'CHEV', vin: null }] } };
  const s = scoreAgainstLabel(label, built.data);
  t.true(s.comparisons.filter((c) => c.field === 'vehicle.year' || c.field === 'vehicle.make').every((c) => c.ok));
  // Without the vehicle the same label misses.
  const none = scoreAgainstLabel(label, emptyExtractedData('personal_auto'));
  t.false(none.comparisons.find((c) => c.field === 'vehicle.year')!.ok);
});

test('auto liability: "each person" with "each occurrence" on the next line is a split limit, named as printed', (t) => {
  const p = page([
    [31, 122, 'Coverage'],
    [212, 122, 'Limits'],
    [31, 151, '• Bodily Injury'],
    [212, 151, '$100,000 each person'],
    [212, 163, '$300,000 each occurrence'],
    [31, 177, '• Property Damage'],
    [212, 177, '$100,000 each occurrence'],
  ]);
  const cs = collect((e) => autoFields([p], [], e));
  const bi = cs.find((c) => /\/limit$/.test(c.pointer) && c.value === '100000/300000');
  t.truthy(bi);
  const name = cs.find((c) => c.pointer === bi!.pointer.replace(/limit$/, 'name'));
  t.is(name?.value, 'Bodily Injury'); // printed on the page, so it grounds
});

test('policy number: a bare "Policy:" caption, but not "Policy Period:"', (t) => {
  const p = page([
    [79, 235, 'Policy: MI 70918246'],
    [389, 235, '24-Hour Claims: 1-800-555-0142'],
  ]);
  t.is(first(collect((e) => policyNumber([p], e)))['/policy/policy_number'], 'MI 70918246');
  const q = page([[79, 247, 'Policy Period: 02/13/2022 12:01AM to 08/13/2022 12:01AM']]);
  t.false('/policy/policy_number' in first(collect((e) => policyNumber([q], e))));
});

test('named insured: "Name and Address of Insured" captions its column; a caption heading the next column is not the name', (t) => {
  // Two columns of captions over their values: the insured's block on the left, the carrier's caption on the right.
  for (const right of ['Insurer', 'Insurance Company', 'Underwritten By']) {
    const p = page([
      [50, 60, 'COMMERCIAL GENERAL LIABILITY DECLARATIONS'],
      [50, 100, 'NAME AND ADDRESS OF INSURED'],
      [260, 100, right],
      [50, 113, 'Summit Dental Group PC'],
      [260, 113, 'Red Mesa Insurance Company of America'],
      [50, 126, '2150 Commerce Dr'],
      [50, 139, 'Chicago, IL 60607'],
    ]);
    const r = first(collect((e) => findNamedInsured([p], e)));
    t.is(r['/policyholder/organization'], 'Summit Dental Group PC', right);
    t.is(r['/policyholder/address'], '2150 Commerce Dr, Chicago, IL 60607', right);
  }
  // The name beside its caption stays the name.
  const q = page([
    [50, 100, 'Name and Address of Insured:'],
    [200, 100, 'Blue Fin Cafe Inc'],
    [200, 113, '45 Market St'],
    [200, 126, 'Boise, ID 83702'],
  ]);
  t.is(first(collect((e) => findNamedInsured([q], e)))['/policyholder/organization'], 'Blue Fin Cafe Inc');
});

test('policyholder address: "ST ZIP" on its own line ends the address; a labelled name with no address takes the mailing block', (t) => {
  const p = page([
    [36, 120, 'Named Insured(s)'],
    [36, 132, 'FROST, CELIA'],
    [36, 140, '2817 Osprey Bend Ct NE Lansing'],
    [36, 149, 'MI 48911'],
  ]);
  t.is(first(collect((e) => findNamedInsured([p], e)))['/policyholder/address'], '2817 Osprey Bend Ct NE Lansing, MI 48911');
  const q = page([
    [36, 74, 'Government Employees Insurance Company'],
    [36, 85, 'P.O. Box 509090'],
    [36, 98, 'San Diego, CA 92150-1111'],
    [36, 221, 'WENDELL OKAFOR'],
    [36, 233, '419 COPPER HOLLOW RD'],
    [36, 244, 'SANTA ROSA CA 95404'],
    [37, 303, 'Named Insured'],
    [297, 303, 'Additional Drivers'],
    [37, 319, 'Wendell Okafor'],
    [297, 319, 'Irene Castillo'],
    [37, 331, 'Theo Marsh'],
  ]);
  const r = first(collect((e) => findNamedInsured([q], e)));
  t.is(r['/policyholder/first_name'], 'Wendell');
  t.is(r['/policyholder/address'], '419 COPPER HOLLOW RD, SANTA ROSA CA 95404');
  // An agency's block ("… Agy") is not the insured's mailing address.
  const a = page([
    [402, 50, 'Policyholder(s)'],
    [45, 62, 'Corbin Hale Agy'],
    [402, 62, 'Marta Lindqvist'],
    [45, 72, '77 S Main St'],
    [402, 72, 'Policy number'],
    [45, 80, 'Paris KY 40361-2210'],
    [59, 127, 'MARTA LINDQVIST'],
    [59, 139, '91 TANAGER WAY'],
    [59, 151, 'FRANKFORT KY 40601'],
  ]);
  t.is(first(collect((e) => findNamedInsured([a], e)))['/policyholder/address'], '91 TANAGER WAY, FRANKFORT KY 40601');
});

test('property deductible: "$1,000 Deductible" as a row caption, "All other covered perils" beside a hurricane one, never a change-summary row', (t) => {
  const ded = (pages: PageText[]) => first(collect((e) => propertyLines(pages, e, new Set())))['/property/deductible'];
  // A change history ("Deductible Changed  $2,500  $500") comes before the declarations' own row.
  const changes = page([
    [38, 220, 'DATE'],
    [119, 220, 'CHANGES'],
    [380, 220, 'FROM'],
    [433, 220, 'TO'],
    [38, 284, '14 Nov, 2021'],
    [119, 284, 'Deductible Changed'],
    [380, 284, '$2,500'],
    [433, 284, '$500'],
  ]);
  const dec = page(
    [
      [38, 500, 'Medical Payments To Others'],
      [442, 500, '$1,000'],
      [38, 563, '$250 Deductible'],
      [509, 563, 'Included'],
    ],
    2,
  );
  t.is(ded([changes, dec]), 250);
  const asi = page([
    [24, 486, 'Deductibles:'],
    [108, 492, 'HURRICANE:'],
    [276, 492, '2% - $6240'],
    [108, 504, 'ALL OTHER COVERED PERILS:'],
    [276, 504, '$2500'],
  ]);
  t.is(ded([asi]), 2500);
  // A "Before / After" summary of a change, then the revised declarations.
  const summary = page([
    [42, 289, 'Risk Location:'],
    [303, 316, 'Before'],
    [438, 316, 'After'],
    [43, 344, 'Limits'],
    [50, 359, 'All Other Peril Deductible'],
    [303, 359, '$2,500'],
    [438, 359, '$5,000'],
  ]);
  const revised = page(
    [
      [177, 638, 'DEDUCTIBLE'],
      [177, 661, 'All Other Peril Deductible'],
      [376, 661, '$5,000 per covered loss'],
    ],
    2,
  );
  t.is(ded([summary, revised]), 5000);
});

const partyNames = (pages: PageText[]) => {
  const r = collect((e) => partyFields(pages, e));
  return r.filter((c) => c.pointer.endsWith('/name')).map((c) => `${c.value} (${r.find((x) => x.pointer === c.pointer.replace(/name$/, 'role'))?.value})`);
};

test('interested parties: a caption with trailing words, a numbered name with ISAOA/ATIMA, forms lists are not captions', (t) => {
  t.deepEqual(
    partyNames([
      page([
        [54, 173, 'Name and Mailing Address'],
        [348, 173, 'Agent Information'],
        [348, 267, 'Mortgagee Name and Address'],
        [348, 280, '1. OLD NATIONAL BANK'],
        [358, 294, 'ISAOA/ATIMA'],
      ]),
    ]),
    ['OLD NATIONAL BANK ISAOA/ATIMA (mortgagee)'],
  );
  // A form titled "Additional Insured" in the forms list (with its edition date), then the mortgagee's own box.
  t.deepEqual(
    partyNames([
      page([
        [177, 200, 'NAME'],
        [385, 200, 'FORM NUMBER'],
        [177, 308, 'Additional Insured'],
        [528, 308, '03/01/2008'],
        [177, 320, 'Home Systems Protection'],
        [528, 320, '08/01/2016'],
        [177, 413, 'MORTGAGEE INFORMATION'],
        [177, 436, 'JPMorgan Chase Bank, NA'],
      ]),
    ]),
    ['JPMorgan Chase Bank, NA (mortgagee)'],
  );
  // A list of attached documents names "Interested Party"; the interest itself is "The Terraces of Brookfield".
  t.deepEqual(
    partyNames([
      page([
        [204, 36, 'ADDITIONAL DOCUMENTS ATTACHED TO THIS POLICY'],
        [38, 82, 'Interested Party'],
        [38, 106, 'Disclosure Notice'],
        [38, 129, 'Special Provisions'],
      ]),
    ]),
    [],
  );
  t.deepEqual(
    partyNames([
      page([
        [32, 69, 'Additional Interest'],
        [287, 69, 'ASI HO AINT 06 15'],
        [24, 281, 'Additional Interest:'],
        [27, 293, 'The Terraces of Brookfield'],
      ]),
    ]),
    ['The Terraces of Brookfield (additional_interest)'],
  );
});

test('interested parties: a lienholder or mortgageholder column of a table, one per row, a wrapped name joined', (t) => {
  t.deepEqual(
    partyNames([
      page([
        [38, 364, 'Vehicles'],
        [198, 364, 'VIN'],
        [307, 364, 'Vehicle Location'],
        [452, 364, 'Finance Company/'],
        [452, 376, 'Lienholder'],
        [38, 395, '1 2003 Toyota SequoiaSR5'],
        [193, 395, '4T1BF1FK5CU604118'],
        [306, 395, 'SANTA ROSA CA 95404'],
        [38, 455, '3 2020 Nissan Leaf'],
        [193, 455, '5YJ3E1EA7KF317452'],
        [306, 455, 'SANTA ROSA CA 95404'],
        [452, 455, 'NISSAN MOTOR ACCEPT'],
        [452, 467, 'CORP'],
        [38, 497, '4 2020 Kia Niro'],
        [193, 497, 'WBA8E9G51GNT84421'],
        [306, 497, 'SANTA ROSA CA 95404'],
        [452, 497, 'Kia Motors Finance'],
        [40, 531, 'Coverages*'],
        [452, 545, 'Not A Lender Row'],
      ]),
    ]),
    ['NISSAN MOTOR ACCEPT CORP (lienholder)', 'Kia Motors Finance (lienholder)'],
  );
  t.deepEqual(
    partyNames([
      page([
        [45, 504, 'No.'],
        [80, 504, 'No.'],
        [109, 504, 'Mortgageholder Name:'],
        [249, 504, 'Mortgageholder Address:'],
        [455, 504, 'Remarks:'],
        [39, 518, '1'],
        [85, 518, '1'],
        [109, 518, 'Some Bank'],
        [39, 561, '1'],
        [85, 561, '1'],
        [109, 561, 'Test Bank'],
        [36, 612, 'SECTION I – PROPERTY'],
      ]),
    ]),
    ['Some Bank (mortgagee)', 'Test Bank (mortgagee)'],
  );
});

test('BOP liability: the each-occurrence limit named after its amount ("$1,000,000 Per Occurrence", "Each" / "occurrence" wrapped) grounds and scores', (t) => {
  const society = page([
    [129, 455, 'Coverage'],
    [383, 455, 'Limit Of Insurance'],
    [41, 470, 'Liability And Medical Expenses'],
    [273, 470, '$'],
    [380, 470, '1,000,000 Per Occurrence'],
    [41, 500, 'Medical Expenses'],
    [273, 500, '$'],
    [404, 500, '1,000 Per Person'],
  ]);
  const erie = page([
    [40, 94, 'Coverage'],
    [358, 94, 'Deductible'],
    [465, 94, 'Limit'],
    [40, 109, 'Bodily injury and property damage'],
    [465, 109, '$1,000,000 Each'],
    [465, 123, 'occurrence'],
    [40, 136, 'Personal and advertising injury'],
    [465, 136, '$1,000,000 Any one person'],
  ]);
  for (const [p, name] of [
    [society, 'Liability And Medical Expenses - Per Occurrence'],
    [erie, 'Bodily injury and property damage - Each occurrence'],
  ] as const) {
    const cs = collect((e) => liabilityFields([p], [], e));
    const r = first(cs);
    t.is(r['/coverages/0/name'], name);
    t.is(r['/coverages/0/limit'], 1000000);
    // The stitched name is grounded by its cited row; a name with a word not in the row is not.
    const idx = indexPages([p]);
    const nameC = cs.find((c) => c.pointer === '/coverages/0/name')!;
    t.true(ground(nameC, idx).ok);
    t.false(ground({ ...nameC, value: `${name} Umbrella` }, idx).ok);
    const data = buildExtractedData('businessowners', cs).data;
    const s = scoreAgainstLabel({ file: 'x.pdf', doc_kind: 'bop_dec', liability_limit: 1000000 }, data);
    t.true(s.comparisons.find((c) => c.field === 'liability_limit')!.ok);
  }
});

test('weaker evidence, flagged: the insured location when no mailing address is printed, and "Dear Harriet," when no named insured is', (t) => {
  const letter = page([
    [36, 154, '04/03/2020'],
    [36, 180, 'Dear Harriet,'],
    [42, 289, 'Risk Location:'],
    [99, 316, '4410 Heron Ridge Drive,'],
    [103, 329, 'Saint Charles, Missouri 63301'],
    [177, 504, 'Dwelling'],
    [445, 504, '$1,412,300'],
  ]);
  const cs = extractByRules([letter], 'homeowners');
  const r = first(cs);
  t.is(r['/property/address'], '4410 Heron Ridge Drive, Saint Charles, Missouri 63301');
  t.is(r['/policyholder/address'], '4410 Heron Ridge Drive, Saint Charles, Missouri 63301');
  t.is(r['/policyholder/first_name'], 'Harriet');
  for (const c of cs.filter((c) => c.pointer.startsWith('/policyholder/'))) t.true(c.confidence < 0.7, c.pointer);
  // A generic salutation names nobody; a printed mailing address is not replaced.
  const member = page([
    [36, 180, 'Dear PURE Member,'],
    [54, 277, 'Named insured'],
    [54, 291, 'Paula Whitcombe'],
    [54, 305, '48 Quarry Road'],
    [54, 319, 'Linton, OK 73011'],
    [42, 400, 'Residence Premises: 5 Elm St, Linton, OK 73011'],
  ]);
  const m = first(extractByRules([member], 'homeowners'));
  t.is(m['/policyholder/first_name'], 'Paula');
  t.is(m['/policyholder/address'], '48 Quarry Road, Linton, OK 73011');
  t.false(extractByRules([page([[36, 180, 'Dear Valued Customer,']])], 'homeowners').some((c) => c.pointer.startsWith('/policyholder/')));
});

test('auto liability: the Massachusetts optional bodily injury row sets the limits over the compulsory one; "Damage to Someone Else\'s Property" is property damage; a letter-spaced "Each A ccident" still reads', (t) => {
  const p = page([
    [46, 100, 'Compulsory Insurance'],
    [46, 115, '1. Bodily Injury'],
    [187, 115, '$'],
    [224, 115, '15,000 Each Person'],
    [350, 115, '$210.00'],
    [67, 128, 'to Others'],
    [187, 128, '$'],
    [224, 128, '30,000 Each A ccident'],
    [46, 150, '3. Bodily Injury Caused'],
    [187, 150, '$'],
    [220, 150, '40,000 Each Person'],
    [65, 163, 'by A n Uninsured A uto'],
    [187, 163, '$'],
    [220, 163, '80,000 Each A ccident'],
    [46, 185, '4. Damage to Someone'],
    [187, 185, '$'],
    [220, 185, '75,000 Each A ccident'],
    [350, 185, '$97.00'],
    [65, 198, "Else's Property"],
    [46, 220, 'Optional Coverage'],
    [46, 235, '5. Optional Bodily Injury'],
    [187, 235, '$'],
    [220, 235, '250,000 Each Person'],
    [350, 235, '$61.00'],
    [67, 248, 'to Others'],
    [187, 248, '$'],
    [220, 248, '500,000 Each A ccident'],
  ]);
  const cs = collect((e) => autoFields([p], [], e));
  const built = buildExtractedData('personal_auto', cs);
  const label = { file: 'x.pdf', doc_kind: 'auto_dec', auto: { bi_per_person: 250000, bi_per_accident: 500000, pd_per_accident: 75000 } };
  const s = scoreAgainstLabel(label, built.data);
  for (const f of ['auto.bi_per_person', 'auto.bi_per_accident', 'auto.pd_per_accident'])
    t.true(s.comparisons.find((c) => c.field === f)?.ok, `${f}: ${JSON.stringify(built.data.coverages)}`);
  assertGrounded(
    t,
    cs.filter((c) => c.pointer.startsWith('/coverages/') && c.value !== null),
    [p],
  );
  // Without the optional row the compulsory limits are the policy's.
  const q = page([
    [46, 115, '1. Bodily Injury'],
    [224, 115, '15,000 Each Person'],
    [67, 128, 'to Others'],
    [224, 128, '30,000 Each A ccident'],
  ]);
  t.true(collect((e) => autoFields([q], [], e)).some((c) => c.value === '15000/30000'));
});

test('policyholder: a mailing-address block with a line of the right-hand column printed between the name and the street', (t) => {
  const p = page([
    [48, 29, 'SOMEBRAND'],
    [48, 38, 'P.O. BOX 40112'],
    [48, 47, 'TAMPA, FL 33601'],
    [408, 76, 'Policy Number: 55501234'],
    [424, 100, 'Underwritten by:'],
    [424, 111, 'Octant Casualty Insurance Co'],
    [48, 117, 'NOLAN ABARA'],
    [424, 123, 'Policy Period: Jan 3, 2024 - Jul 3, 2024'],
    [48, 129, '88 W LARCH CT'],
    [48, 139, 'EAGAN, MN 55121'],
    [424, 137, 'Page 1 of 2'],
  ]);
  t.true(
    p.lines.some((l) => /Policy Period/.test(l.text) && !/NOLAN|LARCH/.test(l.text)),
    'the right-hand line sits between the block lines',
  );
  const r = first(collect((e) => findNamedInsured([p], e)));
  t.is(r['/policyholder/first_name'], 'NOLAN');
  t.is(r['/policyholder/last_name'], 'ABARA');
  t.is(r['/policyholder/address'], '88 W LARCH CT, EAGAN, MN 55121');
});

test('personal liability: "Personal Liability (Bodily Injury and Property Damage) Each Occurrence" is the liability row; a personal injury row is not', (t) => {
  const p = page([
    [54, 300, 'Section II - Liability Coverages'],
    [54, 315, 'E'],
    [78, 315, 'Personal Liability (Bodily Injury and Property Damage) Each Occurrence..'],
    [540, 315, '400,000'],
    [54, 328, 'F'],
    [78, 328, 'Medical Payments to Others Each Person'],
    [516, 328, '$'],
    [553, 328, '2,000'],
  ]);
  const r = first(collect((e) => propertyLines([p], e, new Set())));
  t.is(r['/property/personal_liability'], 400000);
  t.is(r['/property/medical_payments'], 2000);
  const q = page([
    [54, 315, 'Personal Liability - Personal Injury'],
    [540, 315, '$50,000'],
  ]);
  t.is(first(collect((e) => propertyLines([q], e, new Set())))['/property/personal_liability'], undefined);
});

test('policy number: with no captioned number, one quoted in a sentence is taken as weaker evidence; a caption still wins', (t) => {
  const p = page([
    [54, 120, 'Homeowners Policy No.'],
    [54, 500, 'Once at the website, type in your policy number 7712093348810 and product code HQ9'],
  ]);
  const c = collect((e) => policyNumber([p], e)).find((c) => c.pointer === '/policy/policy_number');
  t.is(c?.value, '7712093348810');
  t.true((c?.confidence ?? 1) < 0.8);
  const q = page([
    [54, 120, 'Policy Number: ZK-440981'],
    [54, 500, 'Please quote your policy number 7712093348810 when you call'],
  ]);
  t.is(first(collect((e) => policyNumber([q], e)))['/policy/policy_number'], 'ZK-440981');
  // Not a number: "policy number and product code".
  const r = page([[54, 500, 'type in your policy number and product code HQ9 12345']]);
  t.false('/policy/policy_number' in first(collect((e) => policyNumber([r], e))));
});

test('policyholder address: a "Mailing address" caption of the declarations beats an unlabelled letter block on page 1', (t) => {
  // Page 1: a letter, its window block (another address); page 3: the declarations, an amount column set 9 pt
  // left of the "Mailing address" column (one run of text per line in the text layer, as some PDFs write it).
  const p1 = page([
    [402, 50, 'Policyholder(s)'],
    [402, 62, 'Marta Lindqvist'],
    [59, 127, 'MARTA LINDQVIST'],
    [59, 139, '730 HERON PT'],
    [59, 151, 'FRANKFORT KY 40601'],
  ]);
  const w = (x: number, y: number, text: string): TextItem => ({ text, x, y, w: text.length * 4.2, h: 10, source: 'text' });
  const row = (y: number, left: string, amount: string, right: string) => [
    w(36, y, left),
    w(392.8 - amount.length * 4.2, y, amount),
    ...right.split(' ').reduce<TextItem[]>((out, word) => {
      const last = out[out.length - 1];
      return [...out, w(last ? last.x + last.w + 2.1 : 401.8, y, word)];
    }, []),
  ];
  const p3 = layoutPage(
    3,
    612,
    792,
    [
      ...row(195, 'City Premium Tax', '37.20', 'Mailing address'),
      ...row(209, 'State Surcharge', '11.65', '12 Juniper Ln'),
      ...row(222, 'Additional coverages', '107.58', 'Versailles KY 40383'),
    ],
    'text',
  );
  t.deepEqual(
    p3.lines.map((l) => l.cells.map((c) => c.text)),
    [
      ['City Premium Tax', '37.20', 'Mailing address'],
      ['State Surcharge', '11.65', '12 Juniper Ln'],
      ['Additional coverages', '107.58', 'Versailles KY 40383'],
    ],
  );
  const r = collect((e) => findNamedInsured([p1, page([[36, 60, 'Important notices']], 2), p3], e)).find((c) => c.pointer === '/policyholder/address');
  t.is(r?.value, '12 Juniper Ln, Versailles KY 40383');
  t.is(r?.page, 3);
  t.regex(r?.rule ?? '', /Mailing address/);
  // Without the caption the letter's block is still the address.
  t.is(first(collect((e) => findNamedInsured([p1], e)))['/policyholder/address'], '730 HERON PT, FRANKFORT KY 40601');
});

test("layout: a wide gap before words starting at one x on three lines in a row is a column edge; a paragraph's wide spaces are not", (t) => {
  const w = (x: number, y: number, text: string): TextItem => ({ text, x, y, w: text.length * 4.2, h: 10, source: 'text' });
  const laid = (items: TextItem[]) => layoutPage(1, 612, 792, items, 'text').lines;
  const cellsPerLine = (items: TextItem[]) => laid(items).map((l) => l.cells.length);
  // Two lines aligned only: not a column.
  t.deepEqual(cellsPerLine([w(36, 100, 'Total'), w(66, 100, 'Due'), w(36, 112, 'Total'), w(66, 112, 'Paid')]), [1, 1]);
  // Justified text: gaps of 7 pt, but the words after them do not start at one x.
  t.deepEqual(
    cellsPerLine([w(36, 100, 'coverage'), w(77.6, 100, 'applies'), w(36, 112, 'to'), w(53.4, 112, 'each'), w(36, 124, 'insured'), w(74.4, 124, 'person')]),
    [1, 1, 1],
  );
  // A fixed-pitch font's one space (0.6 of the height) between a form number and its edition: not a column edge.
  const mono = (x: number, y: number, text: string): TextItem => ({ text, x, y, w: text.length * 6, h: 10, source: 'text' });
  t.deepEqual(cellsPerLine([100, 112, 124].flatMap((y) => [mono(41.8, y, 'BP1405'), mono(83.8, y, '07-13')])), [1, 1, 1]);
  // Three lines: a column.
  t.deepEqual(
    laid([w(36, 100, 'Total'), w(66, 100, 'Due'), w(36, 112, 'Total'), w(66, 112, 'Paid'), w(36, 124, 'Net'), w(66, 124, 'Owed')]).map((l) =>
      l.cells.map((c) => c.text),
    ),
    [
      ['Total', 'Due'],
      ['Total', 'Paid'],
      ['Net', 'Owed'],
    ],
  );
});
