// Free certificates laid out in ways the generator grew for issue 33: answer columns after the limits (their
// captions run into the limits' caption), one "AI/WS" column for both answers, a combined single limit's caption
// wrapped over two lines, "CO. A" apart from its insurer's name, the producer only as a letterhead, and a stanza
// headed "Professional and General Liability".
import test from 'ava';
import { textPage, firstValues, collect } from '../../helpers/pages.ts';
import { extractFreeCertificate } from '../../../pipelines/extraction/free_certificate.ts';
import { firstFreeCertificate, readTextLayer } from '../../helpers/extraction.ts';
import { closeDocumentPools } from '../../../pipelines/extraction/index.ts';
import { renderFreeCertificate, type FreeCertificateSpec } from '../../../fixtures/free_certificate.ts';

test.after.always(() => closeDocumentPools());

const HEAD: [number, number, string][] = [
  [200, 30, 'EVIDENCE OF INSURANCE'],
  [40, 84, 'Agent: Tern Harbor Agency'],
  [40, 96, 'Insured: Quarry Hill Stoneworks LLC'],
];
/** The captions left of the limits, and a general liability row under them. */
const CAPTIONS: [number, number, string][] = [
  [40, 178, 'Type of Insurance'],
  [130, 178, 'Policy #'],
  [200, 178, 'Effective'],
  [260, 178, 'Expiration'],
];
const GL_ROW: [number, number, string][] = [
  [40, 194, 'General Liability'],
  [130, 194, 'GLP-1364286'],
  [200, 194, '01/06/2024'],
  [260, 194, '01/06/2025'],
];

test('answer columns after the limits, their captions run into the limits caption: each column moved onto its marks', (t) => {
  const p = textPage([
    ...HEAD,
    ...CAPTIONS,
    // "Addl" is estimated at 433 + 20 characters of 3.67 pt (506), the marks under it stand at 485.
    [433, 178, 'Limits of Insurance Addl Insd Waiver', 132],
    ...GL_ROW,
    [433, 194, 'Each Occurrence $2,000,000', 48],
    [485, 194, 'Y', 5],
    [540, 194, 'N', 5],
    [433, 206, 'General Aggregate $4,000,000', 48],
    [40, 230, 'Business Auto'],
    [130, 230, 'BA373642'],
    [200, 230, '01/06/2024'],
    [260, 230, '01/06/2025'],
    // The combined single limit's caption wrapped, its amount on the next line (limits set small, 48 pt wide).
    [433, 230, 'Combined Single', 40],
    [485, 230, 'N', 5],
    [540, 230, 'Y', 5],
    [433, 242, 'Limit $1,000,000', 40],
  ]);
  const v = firstValues((emit) => extractFreeCertificate(p, emit));
  t.is(v['/certificate/coverages/0/additional_insured'], true);
  t.is(v['/certificate/coverages/0/subrogation_waived'], false);
  t.is(v['/certificate/coverages/0/each_occurrence'], 2000000);
  t.is(v['/certificate/coverages/1/additional_insured'], false);
  t.is(v['/certificate/coverages/1/subrogation_waived'], true);
  t.is(v['/certificate/coverages/1/combined_single_limit'], 1000000);
});

test('a wrapped caption takes the amount under it only when the line under names no other limit', (t) => {
  const p = textPage([...HEAD, ...CAPTIONS, [330, 178, 'Limits'], ...GL_ROW, [330, 194, 'Each Occurrence'], [330, 206, 'General Aggregate $4,000,000']]);
  const v = firstValues((emit) => extractFreeCertificate(p, emit));
  t.is(v['/certificate/coverages/0/each_occurrence'], null);
  t.is(v['/certificate/coverages/0/general_aggregate'], 4000000);
});

test('one "AI/WS" column: each row "Y/N" gives both answers', (t) => {
  const p = textPage([
    ...HEAD,
    [40, 178, 'Coverage'],
    [130, 178, 'Policy Number'],
    [200, 178, 'AI/WS'],
    [240, 178, 'Effective'],
    [300, 178, 'Expiration'],
    [370, 178, 'Limits'],
    [40, 194, 'General Liability'],
    [130, 194, 'GLP-1364286'],
    [202, 194, 'Y/N'],
    [240, 194, '01/06/2024'],
    [300, 194, '01/06/2025'],
    [370, 194, 'Each Occurrence $2,000,000'],
  ]);
  const v = firstValues((emit) => extractFreeCertificate(p, emit));
  t.is(v['/certificate/coverages/0/additional_insured'], true);
  t.is(v['/certificate/coverages/0/subrogation_waived'], false);
});

test('"CO. A" apart from its name; the producer only as a letterhead, less surely; a professional and general liability stanza', (t) => {
  const p = textPage([
    [40, 24, 'Keystone Risk Partners LLC'],
    [40, 36, '88 Foundry Rd, Dayton, OH 45402'],
    [200, 70, 'CERTIFICATE OF INSURANCE'],
    [40, 110, 'Insured: Quarry Hill Stoneworks LLC'],
    [40, 180, 'COVERAGES'],
    [40, 196, 'Professional and General Liability'],
    [52, 208, 'Insurer:'],
    [160, 208, 'Rowan Mutual Insurance Company'],
    [52, 220, 'Policy No.:'],
    [160, 220, 'GL-1333350'],
    [52, 232, 'Policy Period:'],
    [160, 232, '12/05/2025 to 12/05/2026'],
    [52, 244, 'Limits:'],
    [160, 244, 'Each Occurrence $1,000,000'],
    [40, 300, 'CO. A'],
    [72, 300, 'Harborview Assurance Corporation'],
  ]);
  const v = firstValues((emit) => extractFreeCertificate(p, emit));
  t.is(v['/certificate/producer'], 'Keystone Risk Partners LLC');
  t.is(v['/certificate/coverages/0/type'], 'general_liability');
  t.is(v['/certificate/coverages/0/policy_number'], 'GL-1333350');
  t.is(v['/certificate/coverages/0/each_occurrence'], 1000000);
  t.is(v['/certificate/insurers/0/letter'], 'A');
  t.is(v['/certificate/insurers/0/name'], 'Harborview Assurance Corporation');
  const producer = collect((emit) => extractFreeCertificate(p, emit)).find((c) => c.pointer === '/certificate/producer')!;
  t.true(producer.confidence < 0.85);
});

test('a carrier at the top of its own evidence of insurance is no letterhead producer', (t) => {
  const p = textPage([
    [40, 24, 'Granite Peak Casualty Company'],
    [200, 70, 'EVIDENCE OF INSURANCE'],
    [40, 110, 'Insured: Quarry Hill Stoneworks LLC'],
  ]);
  const v = firstValues((emit) => extractFreeCertificate(p, emit));
  t.false('/certificate/producer' in v);
});

test('generated certificates with each of these layouts are read whole from their text layer', async (t) => {
  const wanted: [string, (s: FreeCertificateSpec) => boolean][] = [
    ['answers after the limits', (s) => s.answersAfterLimits],
    ['one AI/WS column', (s) => s.combinedAnswers],
    ['a letterhead producer', (s) => s.letterhead],
    ['a wrapped CSL caption', (s) => s.cslWrapped && s.coverages.some((c) => c.type === 'automobile_liability')],
    ['CO. A  name', (s) => s.letters && s.labels.insurerList === 'CO.'],
    ['a professional and GL stanza', (s) => s.professional],
  ];
  for (const [what, ok] of wanted) {
    const { seed, spec } = firstFreeCertificate(35_000, ok);
    const { misses } = await readTextLayer(await renderFreeCertificate(spec));
    t.deepEqual(misses, [], `${what}: seed ${seed}`);
  }
});
