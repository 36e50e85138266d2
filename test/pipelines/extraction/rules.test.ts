import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import { extractDocument, closeDocumentPools, detectKind, extractedDataSchema, ground, indexPages } from '../../../pipelines/extraction/index.ts';
import { readDocument } from '../../../pipelines/documents/index.ts';
import { scoreDocument, sumScores, precision, recall } from '../../../pipelines/extraction/evaluate.ts';
import { fixture, fixturesDir, textPdf } from '../documents/helpers.ts';

test.after.always(() => closeDocumentPools());

const textFixtures = fs.readdirSync(fixturesDir).filter((f) => f.endsWith('.pdf') && !f.includes('_scan'));
const expectedOf = (f: string) => JSON.parse(fs.readFileSync(path.join(fixturesDir, f.replace(/\.(pdf|png|jpg)$/, '.expected.json')), 'utf8'));

test('there are at least 24 fixtures, each with expected output', (t) => {
  const docs = fs.readdirSync(fixturesDir).filter((f) => /\.(pdf|png|jpg)$/.test(f));
  t.true(docs.length >= 24);
  for (const d of docs) t.true(fs.existsSync(path.join(fixturesDir, d.replace(/\.(pdf|png|jpg)$/, '.expected.json'))), d);
  for (const d of docs) t.true(fs.statSync(path.join(fixturesDir, d)).size < 1_000_000, d);
});

test('every text fixture: kind detected and every expected field extracted exactly', async (t) => {
  const results = await Promise.all(
    textFixtures.map(async (f) => {
      const expected = expectedOf(f);
      const r = await extractDocument(fixture(f), { entityType: expected.entity_type, filename: f, read: { ocr: false } });
      return { f, expected, r, score: scoreDocument(expected, r.extracted_data as unknown as Record<string, unknown>) };
    }),
  );
  for (const { f, expected, r, score } of results) {
    t.is(r.extracted_data.document_kind, expected.document_kind, f);
    t.deepEqual(score.misses, [], f);
    t.true(extractedDataSchema.safeParse(r.extracted_data).success, f);
    t.is(r.parsing_method, 'pdf_text', f);
    t.is(r.parsing_status, 'completed', f);
  }
  const total = sumScores(results.map((x) => x.score.fields));
  const all = Object.values(total).reduce((a, s) => ({ tp: a.tp + s.tp, fp: a.fp + s.fp, fn: a.fn + s.fn }), { tp: 0, fp: 0, fn: 0 });
  t.is(precision(all), 1);
  t.is(recall(all), 1);
});

test('declaration_page detects the kind by itself', async (t) => {
  for (const [f, kind] of [
    ['auto_pinecrest.pdf', 'personal_auto'],
    ['renters_northwind.pdf', 'renters'],
    ['home_bluesky.pdf', 'homeowners'],
    ['bop_riverbend.pdf', 'businessowners'],
    ['cgl_lakeshore.pdf', 'commercial_general_liability'],
    ['coi_beta.pdf', 'certificate'],
  ] as const) {
    const d = await readDocument(fixture(f), { ocr: false });
    t.is(detectKind(d.pages), kind, f);
  }
});

test('every value carries a citation with its page and source text', async (t) => {
  const r = await extractDocument(fixture('auto_acme_mutual.pdf'), { entityType: 'auto_policy', read: { ocr: false } });
  const c = r.extracted_data.citations;
  t.like(c['/policy/policy_number'], { page: 1, text: 'Policy Number: AM-4412-0987', confidence: 0.9, source: 'rules', span: 'AM-4412-0987' });
  t.is(c['/vehicles/1/vin'].page, 1);
  t.regex(c['/vehicles/1/vin'].text, /JTMW1RFV5MD067890/);
  t.is(c['/coverages/0/limit'].page, 1);
  // No citation without a value.
  t.false('/coverages/0/deductible' in c);
  t.true(r._raw.pages[0].lines.length > 10);
  t.true(r._raw.rules.length > 20);
});

test('grounding: a value that is not on its page is refused, money and dates are normalised', async (t) => {
  const d = await readDocument(
    await textPdf([['Policy Number: XY-1234', 'Total Premium: $1,184.50', 'Policy Period: January 5, 2025 to 07/05/2025'], ['Second page']]),
    { ocr: false },
  );
  const idx = indexPages(d.pages);
  const c = (pointer: string, value: string | number, page = 1, text = 'Policy Number: XY-1234') =>
    ground({ pointer, value, page, text, confidence: 0.9, source: 'llm' }, idx);
  t.true(c('/policy/policy_number', 'XY-1234').ok);
  t.true(c('/policy/policy_number', 'xy 1234').ok);
  t.false(c('/policy/policy_number', 'XY-1234', 2).ok); // wrong page
  t.false(c('/policy/policy_number', 'XY-9999').ok);
  t.false(c('/policy/policy_number', 'XY-1234', 3).ok); // no such page
  t.true(c('/policy/premium', 1184.5, 1, 'Total Premium: $1,184.50').ok);
  t.false(c('/policy/premium', 1185, 1, 'Total Premium: $1,184.50').ok);
  t.true(c('/policy/effective_date', '2025-01-05', 1, 'Policy Period: January 5, 2025').ok);
  t.true(c('/policy/expiration_date', '2025-07-05', 1, 'Policy Period: January 5, 2025 to 07/05/2025').ok);
  t.false(c('/policy/expiration_date', '2025-07-06', 1, 'Policy Period').ok);
  t.false(c('/policy/policy_number', 'XY-1234', 1, 'a quote that is nowhere in the document').ok);
});

test('extracted_data has a JSON Schema for the OpenAPI document', async (t) => {
  const { extractedDataJsonSchema } = await import('../../../pipelines/extraction/schema.ts');
  const s = extractedDataJsonSchema() as { properties: Record<string, unknown>; required: string[] };
  for (const k of ['policy_type', 'policy', 'policyholder', 'coverages', 'vehicles', 'drivers', 'property', 'interested_parties', 'certificate', 'citations'])
    t.true(k in s.properties, k);
  t.true(s.required.includes('citations'));
});

test('common core for entity types without deep rules (cyber, D&O, flood, workers comp)', async (t) => {
  for (const [f, type] of [
    ['cyber_sentinel.pdf', 'cyber_security'],
    ['d_and_o_meridian.pdf', 'd_and_o'],
    ['flood_gulf.pdf', 'commercial_flood'],
    ['workers_comp_ironworks.pdf', 'commercial_worker_comp'],
  ] as const) {
    const r = await extractDocument(fixture(f), { entityType: type, read: { ocr: false } });
    const p = r.extracted_data.policy;
    t.truthy(p.provider && p.policy_number && p.effective_date && p.expiration_date && p.premium, f);
    t.true(r.extracted_data.coverages.length > 0, f);
  }
});
