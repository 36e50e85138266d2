// Documents laid out the way the ACORD forms and the usual declarations are not: non-ACORD certificates (parties
// inline or boxed, in one or two columns; coverages as a table with its columns in any order, or one stanza per
// coverage) and declarations whose captions stand right of or under their values. Each is generated with its
// expected values (fixtures/free_certificate.ts, fixtures/layouts.ts) and read end to end; every expected field
// must come back (scored as `svc eval` scores it).
import test from 'ava';
import { firstFreeCertificate, readTextLayer } from '../../helpers/extraction.ts';
import { closeDocumentPools } from '../../../pipelines/extraction/index.ts';
import { renderFreeCertificate, type FreeCertificateSpec } from '../../../fixtures/free_certificate.ts';
import { randomFreeCertificateSpec } from '../../../fixtures/free_certificate_random.ts';
import { randomLayoutSpec, renderLayout, type Arrangement } from '../../../fixtures/layouts.ts';

test.after.always(() => closeDocumentPools());

const variants: Pick<FreeCertificateSpec, 'parties' | 'twoColumns' | 'coverageLayout'>[] = [];
for (const parties of ['inline', 'boxed'] as const)
  for (const twoColumns of [false, true]) for (const coverageLayout of ['table', 'stanza'] as const) variants.push({ parties, twoColumns, coverageLayout });

test('non-ACORD certificates: insured, producer, holder and every coverage row are read, whatever the layout', async (t) => {
  for (const [k, v] of variants.entries()) {
    const spec = { ...randomFreeCertificateSpec(31_000 + k, { scan: false }), ...v };
    const { data, misses } = await readTextLayer(await renderFreeCertificate(spec));
    const d = data as unknown as Record<string, unknown> & { certificate: { coverages: unknown[] } };
    t.is(d.document_kind, 'certificate', spec.name);
    t.deepEqual(misses, [], `${spec.name} ${JSON.stringify(v)} ${spec.font} ${spec.size}`);
    t.is(d.certificate.coverages.length, spec.coverages.length);
  }
});

test('non-ACORD certificates: insurers by letter and the ADDL INSD / SUBR WVD answers, as columns anywhere or as stanza lines', async (t) => {
  const wanted: [string, (s: FreeCertificateSpec) => boolean][] = [
    ['letters, Y/N columns, stacked captions', (s) => s.letters && s.answers === 'yn' && s.stackedCaptions],
    ['X/blank columns apart', (s) => s.coverageLayout === 'table' && s.answers === 'x' && Math.abs(s.columns.indexOf('addl') - s.columns.indexOf('subr')) > 1],
    ['stanza answer lines', (s) => s.coverageLayout === 'stanza' && s.answers !== 'none'],
  ];
  for (const [what, ok] of wanted) {
    const { seed, spec } = firstFreeCertificate(33_000, ok);
    const { misses } = await readTextLayer(await renderFreeCertificate(spec));
    t.deepEqual(misses, [], `${what}: seed ${seed} ${spec.columns.join(',')}`);
  }
});

test('a non-ACORD certificate whose table columns run into one cell is cut at the header columns', async (t) => {
  // Courier at 10 points in the table layout leaves a few points between the date and the insurer columns.
  const spec: FreeCertificateSpec = {
    ...randomFreeCertificateSpec(31_100, { scan: false }),
    coverageLayout: 'table',
    font: 'Courier',
    size: 10,
    columns: ['type', 'eff', 'insurer', 'exp', 'policy'],
    letters: false,
    answers: 'none',
  };
  const { misses } = await readTextLayer(await renderFreeCertificate(spec));
  t.deepEqual(misses, []);
});

test('declarations with captions right of or under their values, or in two columns: carrier, policy number, insured', async (t) => {
  const arrangements: Arrangement[] = ['caption-below', 'caption-right', 'two-columns', 'inline'];
  for (const [k, arrangement] of arrangements.entries())
    for (const carrierAsHeader of [false, true]) {
      const base = randomLayoutSpec(32_000 + k * 2 + (carrierAsHeader ? 1 : 0));
      const spec = { ...base, name: base.name.replace(/_scan$/, ''), arrangement, carrierAsHeader, scan: undefined };
      const { misses } = await readTextLayer(await renderLayout(spec));
      t.deepEqual(misses, [], `${arrangement} carrier as header ${carrierAsHeader} ${JSON.stringify(spec.labels)}`);
    }
});

test('member and program certificates (master policy stated once, limits with or without a line named), a PEO certificate of workers compensation, and a trade name under the insured', async (t) => {
  for (const [k, program] of [
    { limitsNamed: false, aiSentence: true },
    { limitsNamed: true, aiSentence: false },
  ].entries()) {
    const base = randomFreeCertificateSpec(34_000 + k, { scan: false });
    const spec: FreeCertificateSpec = {
      ...base,
      program,
      tradeName: 'Corner Street Deli',
      coverages: [{ ...base.coverages[0], letter: 'A' }],
      letters: false,
      answers: 'none',
    };
    t.deepEqual((await readTextLayer(await renderFreeCertificate(spec))).misses, [], `${JSON.stringify(program)} ${spec.font} ${spec.size}`);
  }
  // A PEO's certificate of workers' compensation: "Client Company", the date beside the title, a sentence of prose
  // that starts "Coverage applies only to …" before the coverages heading.
  for (const coverageLayout of ['table', 'stanza'] as const) {
    const base = randomFreeCertificateSpec(34_200, { scan: false });
    const wc = base.coverages.find((c) => c.type === 'workers_compensation') ?? base.coverages[0];
    const spec: FreeCertificateSpec = {
      ...base,
      coverageLayout,
      peo: true,
      program: null,
      title: "Certificate of Workers' Compensation Coverage",
      coverages: [{ ...wc, letter: 'A' }],
      letters: false,
      answers: 'none',
      columns: ['type', 'insurer', 'policy', 'eff', 'exp'],
      labels: { ...base.labels, insured: 'Client Company' },
    };
    t.deepEqual((await readTextLayer(await renderFreeCertificate(spec))).misses, [], `PEO ${coverageLayout}`);
  }
  // And the usual layouts with the trade name.
  for (const parties of ['inline', 'boxed'] as const) {
    const spec: FreeCertificateSpec = { ...randomFreeCertificateSpec(34_100, { scan: false }), parties, tradeName: 'Brightline HVAC', program: null };
    t.deepEqual((await readTextLayer(await renderFreeCertificate(spec))).misses, [], parties);
  }
});

test('declarations whose insured is a professional corporation ("…, P.C.") and whose additional insured carries a designation', async (t) => {
  for (const [k, arrangement] of (['inline', 'caption-below'] as const).entries()) {
    const base = randomLayoutSpec(35_000 + k);
    const spec = {
      ...base,
      name: base.name.replace(/_scan$/, ''),
      arrangement,
      scan: undefined,
      insured: { ...base.insured, name: 'High Plains Veterinary Clinic, P.C.' },
      designatedInterest: { designation: 'Lessor of Premises', name: 'Lincolnway Properties LLC' },
    };
    t.deepEqual((await readTextLayer(await renderLayout(spec))).misses, [], arrangement);
  }
});
