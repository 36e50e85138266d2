// A free certificate as a scan reads it: the policy number's caption garbled into its neighbour's, a caption's edge
// estimated inside a cell of several captions, a row read as two lines at one height, an answer mark read as some
// other short word, the letter column's caption lost; a party block with residue beside it and a state code read
// with a digit.
import test from 'ava';
import { textPage, ocrPage, firstValues } from '../../helpers/pages.ts';
import { extractFreeCertificate } from '../../../pipelines/extraction/free_certificate.ts';
import { mendStateCode } from '../../../pipelines/extraction/normalise.ts';

test('a header whose policy number caption was read into its neighbour: the row policy number by its shape, the insurer under its moved caption', (t) => {
  const p = textPage([
    [200, 30, 'EVIDENCE OF INSURANCE'],
    [40, 84, 'AGENT'],
    [50, 96, 'Tern Harbor Agency'],
    [40, 178, 'Type of Insuranielicy No.'],
    // "Company" estimated at 177 + 18 characters of 4.84 pt (264), right of the cells under it (253).
    [177, 178, 'Policy Expiration Company', 121],
    [317, 178, 'Effective'],
    [393, 178, 'Limits of Liability'],
    [40, 194, 'Commercial'],
    [103, 194, 'CGL 1829610'],
    [177, 194, '2026-05-12'],
    [253, 194, 'Granite Peak'],
    [317, 194, '2025-05-12'],
    [393, 194, 'Each Occurrence $1,000,000'],
    [40, 206, 'General'],
    [253, 206, 'Casualty'],
    [393, 206, 'General Aggregate $2,000,000'],
    [40, 218, 'Liability'],
    [253, 218, 'Company'],
  ]);
  const v = firstValues((emit) => extractFreeCertificate(p, emit));
  t.is(v['/certificate/coverages/0/type'], 'general_liability');
  t.is(v['/certificate/coverages/0/policy_number'], 'CGL 1829610');
  t.is(v['/certificate/coverages/0/effective_date'], '2025-05-12');
  t.is(v['/certificate/coverages/0/each_occurrence'], 1000000);
  t.is(v['/policy/provider'], 'Granite Peak Casualty Company');
});

test('a row a skewed scan read as two lines at one height is one row; a garbled answer mark is unread, not no', (t) => {
  const p = ocrPage([
    [40, 84, 'AGENT', 7, 1],
    [50, 96, 'Tern Harbor Agency', 7, 2],
    [40, 178, 'Line of Business', 7, 3],
    [170, 178, 'Policy Effective', 7, 4],
    [235, 178, 'Carrier', 7, 4],
    [308, 178, 'ADDL', 7, 4],
    [332, 178, 'SUBR', 7, 4],
    [362, 178, 'Policy No.', 7, 4],
    [437, 178, 'Limits', 7, 4],
    [106, 178, 'Exp. Date', 7, 3],
    // The first row: its right part and its left part read as two engine lines.
    [168, 196, '2025-09-25', 7, 5],
    [236, 196, 'Ironwood', 7, 5],
    [308, 196, 'Yo', 7, 5],
    [334, 196, 'N', 7, 5],
    [362, 196, 'GLP3688728', 7, 5],
    [436, 196, 'Each Occurrence $1,000,000', 7, 5],
    [40, 197, 'General', 7, 6],
    [106, 197, '2026-09-25', 7, 6],
    [41, 208, 'Liability', 7, 7],
    [236, 208, 'Indemnity', 7, 7],
  ]);
  const v = firstValues((emit) => extractFreeCertificate(p, emit));
  t.is(v['/certificate/coverages/0/type'], 'general_liability');
  t.is(v['/certificate/coverages/0/policy_number'], 'GLP3688728');
  t.is(v['/certificate/coverages/0/effective_date'], '2025-09-25');
  t.is(v['/certificate/coverages/0/expiration_date'], '2026-09-25');
  t.is(v['/certificate/coverages/0/each_occurrence'], 1000000);
  t.is(v['/certificate/coverages/0/additional_insured'], null);
  t.is(v['/certificate/coverages/0/subrogation_waived'], false);
});

test('a party block without the residue a scan left far right of it; a state code read with a digit is mended', (t) => {
  const words: [number, number, string, number?, number?][] = [
    [47, 98, 'NAMED INSURED', 7, 1],
    [323, 98, 'AGENT', 7, 1],
    [51, 113, 'Riverside Auto Body Inc', 7, 2],
    [356, 113, 'Summit Brokerage Group Inc', 7, 2],
    [41, 124, '88 Foundry Rd', 7, 3],
    [328, 124, '1200 W Fulton Market', 7, 3],
    [50, 134, 'Madison, W1 53703', 7, 4],
    [361, 134, 'Boise, ID 83702', 7, 4],
  ];
  const clean = ocrPage(words);
  // The residue: two letters read with little confidence, far right of the name and of the city line.
  const residue = ocrPage([...words, [233, 113, 'Ah', 7, 2], [237, 134, 'EG', 7, 4]]);
  for (const cell of residue.lines.flatMap((l) => l.cells)) if (/^(?:Ah|EG)$/.test(cell.text)) cell.conf = 0.26;
  for (const p of [clean, residue]) {
    const v = firstValues((emit) => extractFreeCertificate(p, emit));
    t.is(v['/certificate/insured'], 'Riverside Auto Body Inc');
    t.is(v['/policyholder/address'], '88 Foundry Rd, Madison, WI 53703');
  }
  t.is(mendStateCode('Chicago, lL 60607'), 'Chicago, IL 60607');
  // Not a state once mended: left as read.
  t.is(mendStateCode('Springfield, Z1 62701'), 'Springfield, Z1 62701');
});

test('a table whose letter caption the scan lost: a lone listed letter on the row names its insurer, less surely', (t) => {
  const p = textPage([
    [40, 84, 'AGENT'],
    [50, 96, 'Tern Harbor Agency'],
    [48, 231, 'Coverage'],
    [151, 231, 'Expiration'],
    [227, 231, 'Policy Effective'],
    [300, 231, 'Policy Number'],
    [380, 231, 'Limits of Liability'],
    [46, 249, 'General Liability'],
    [151, 249, '10/03/2026'],
    [208, 249, 'A'],
    [227, 249, '10/03/2025'],
    [300, 249, 'CGL-7775221'],
    [380, 249, 'Each Occurrence $2,000,000'],
    [46, 280, 'Insurer A: Silver Creek Insurance Company of America'],
  ]);
  const v = firstValues((emit) => extractFreeCertificate(p, emit));
  t.is(v['/certificate/coverages/0/insurer_letter'], 'A');
  t.is(v['/policy/provider'], 'Silver Creek Insurance Company of America');
});

test('words of one value a scan read apart: a stanza policy number "CUP" "9033306", a holder city "Chicago," "IL 60607"', (t) => {
  const p = ocrPage([
    [55, 100, 'COVERAGES', 7, 1],
    [55, 114, 'Umbrella Liability', 7, 2],
    [55, 126, 'Policy No.:', 7, 3],
    [181, 126, 'CUP', 7, 3],
    [203, 126, '9033306', 7, 3],
    [55, 138, 'Policy Period:', 7, 4],
    [182, 138, '2025-03-03 to 2026-03-03', 7, 4],
    [43, 619, 'Certificate Issued To: City of Millbrook', 7, 5],
    [150, 631, '310 Elm Ave', 7, 6],
    [150, 643, 'Chicago,', 7, 7],
    [197, 643, 'IL 60607', 7, 7],
  ]);
  const v = firstValues((emit) => extractFreeCertificate(p, emit));
  t.is(v['/certificate/coverages/0/policy_number'], 'CUP 9033306');
  t.is(v['/interested_parties/0/address'], '310 Elm Ave, Chicago, IL 60607');
});

test('a scanned table that prints N for no: a blank answer cell is a lost mark (null), and a WC row without its limits is not "not statutory"', (t) => {
  const p = textPage(
    [
      [40, 84, 'AGENT'],
      [50, 96, 'Tern Harbor Agency'],
      [40, 178, 'Type of Insurance'],
      [170, 178, 'Insurer'],
      [270, 178, 'ADDL'],
      [300, 178, 'SUBR'],
      [330, 178, 'Policy No.'],
      [405, 178, 'Eff'],
      [450, 178, 'Exp'],
      [495, 178, 'Limits'],
      [40, 194, 'General Liability'],
      [170, 194, 'Rowan Mutual'],
      [330, 194, 'RMG 5512090'],
      [405, 194, '03/01/2025'],
      [450, 194, '03/01/2026'],
      [40, 230, 'Workers Compensation'],
      [170, 230, 'Rowan Mutual'],
      [273, 230, 'Y'],
      [303, 230, 'N'],
      [330, 230, 'WC 5512091'],
      [405, 230, '03/01/2025'],
      [450, 230, '03/01/2026'],
    ],
    1,
    { source: 'ocr' },
  );
  const v = firstValues((emit) => extractFreeCertificate(p, emit));
  t.is(v['/certificate/coverages/0/additional_insured'], null);
  t.is(v['/certificate/coverages/0/subrogation_waived'], null);
  t.is(v['/certificate/coverages/1/additional_insured'], true);
  t.is(v['/certificate/coverages/1/subrogation_waived'], false);
  t.is(v['/certificate/coverages/1/wc_statutory'], null);
});

test('captions and dates a scan misread: "AUWS" for AI/WS, "Bach Occurrence", "December22, 2026" and "December\' 22, 2027"', (t) => {
  const p = textPage(
    [
      [40, 84, 'AGENT'],
      [50, 96, 'Tern Harbor Agency'],
      [38, 174, 'Type of Coverage'],
      [133, 174, 'Policy No.'],
      [207, 174, 'AUWS'],
      [233, 174, 'Insurer'],
      [336, 174, 'Exp. Date'],
      [400, 174, 'Effective'],
      [465, 174, 'Limits'],
      [39, 189, 'CGL Occurrence'],
      [133, 189, 'GL 5598900'],
      [207, 189, 'Y/N'],
      [233, 189, 'Ironwood Indemnity'],
      [336, 189, 'December 22, 2027'],
      [400, 189, 'December 22, 2026'],
      [466, 189, 'Bach Occurrence $1,000,000'],
      [39, 218, 'Excess Umbrella Liability'],
      [133, 218, 'XS 556359'],
      [207, 218, 'N/N'],
      [233, 218, 'Ironwood Indemnity'],
      [335, 218, "December' 22, 2027"],
      [401, 218, 'December22, 2026'],
      [466, 218, 'Each Occurrence $5,000,000'],
    ],
    1,
    { source: 'ocr' },
  );
  const v = firstValues((emit) => extractFreeCertificate(p, emit));
  t.is(v['/certificate/coverages/0/type'], 'general_liability');
  t.is(v['/certificate/coverages/0/additional_insured'], true);
  t.is(v['/certificate/coverages/0/subrogation_waived'], false);
  t.is(v['/certificate/coverages/0/each_occurrence'], 1000000);
  t.is(v['/certificate/coverages/1/type'], 'umbrella_liability');
  t.is(v['/certificate/coverages/1/effective_date'], '2026-12-22');
  t.is(v['/certificate/coverages/1/expiration_date'], '2027-12-22');
  t.is(v['/certificate/coverages/1/subrogation_waived'], false);
});

test('party captions a scan misread by one letter ("ISSURD BY", "Ingured:"); "Insurer" is never the insured\'s caption', (t) => {
  const p = ocrPage([
    [328, 98, 'ISSURD BY', 7, 1],
    [332, 112, 'Summit Brokerage Group Inc', 7, 2],
    [39, 160, 'Ingured: Tri-County Paving Co', 7, 3],
    [87, 172, '45 Market St', 7, 4],
  ]);
  const v = firstValues((emit) => extractFreeCertificate(p, emit));
  t.is(v['/certificate/producer'], 'Summit Brokerage Group Inc');
  t.is(v['/certificate/insured'], 'Tri-County Paving Co');
  const q = ocrPage([
    [40, 98, 'Insurer', 7, 1],
    [40, 112, 'Granite Peak Casualty Company', 7, 2],
  ]);
  t.false('/certificate/insured' in firstValues((emit) => extractFreeCertificate(q, emit)));
});
