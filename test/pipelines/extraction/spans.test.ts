import test from 'ava';
import fs from 'node:fs';
import { extractDocument, closeDocumentPools } from '../../../pipelines/extraction/index.ts';
import { spanHolds } from '../../../pipelines/extraction/spans.ts';
import { fixture, fixturesDir } from '../documents/helpers.ts';

test.after.always(() => closeDocumentPools());

const CLASSIFICATION = /\/(role|type|insurer_letter|additional_insured|subrogation_waived|wc_statutory)$/;
const valueAt = (data: unknown, pointer: string) =>
  pointer
    .split('/')
    .slice(1)
    .reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), data);

test('every fixture: each value cites its own words (the normalised span holds the value) and a box on its page', async (t) => {
  const files = fs.readdirSync(fixturesDir).filter((f) => f.endsWith('.pdf') && !f.includes('_scan'));
  let cited = 0;
  for (const f of files) {
    const expected = JSON.parse(fs.readFileSync(`${fixturesDir}/${f.replace(/\.pdf$/, '.expected.json')}`, 'utf8'));
    const r = await extractDocument(fixture(f), { entityType: expected.entity_type, read: { ocr: false } });
    for (const [pointer, c] of Object.entries(r.extracted_data.citations)) {
      if (CLASSIFICATION.test(pointer) || typeof valueAt(r.extracted_data, pointer) === 'boolean') continue;
      const value = valueAt(r.extracted_data, pointer);
      t.truthy(c.span, `${f} ${pointer}: no span`);
      t.true(spanHolds(c.span ?? '', value), `${f} ${pointer}: span ${JSON.stringify(c.span)} does not hold ${JSON.stringify(value)}`);
      const page = r._raw.pages.find((p) => p.page === c.page)!;
      t.truthy(c.box, `${f} ${pointer}: no box`);
      t.true(
        c.box!.x >= 0 && c.box!.y >= 0 && c.box!.x + c.box!.w <= page.width + 1 && c.box!.y + c.box!.h <= page.height + 1,
        `${f} ${pointer}: box off the page`,
      );
      // The span is the value's words, not the row they sit in.
      t.true(c.span!.length <= String(value).length * 2 + 24, `${f} ${pointer}: span ${JSON.stringify(c.span)} is more than the value`);
      cited++;
    }
  }
  t.true(cited > 300);
});

test('a certificate carrier cites the insurer line, not the coverage row', async (t) => {
  const r = await extractDocument(fixture('coi_alpha.pdf'), { read: { ocr: false } });
  const c = r.extracted_data.citations['/policy/provider'];
  t.is(c.span, 'Commonwealth Casualty Company');
  t.is(r.extracted_data.citations['/certificate/coverages/2/el_each_accident'].span, '$500,000');
});
