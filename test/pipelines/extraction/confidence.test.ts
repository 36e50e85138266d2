// Honest values: no guess where the page does not support one, and a record whose required field needs review is partial.
import test from 'ava';
import type { PageText, DocumentText } from '../../../pipelines/documents/index.ts';
import { textPage as page } from '../../helpers/pages.ts';
import { extractByRules } from '../../../pipelines/extraction/rules.ts';
import { extractFromText } from '../../../pipelines/extraction/index.ts';

const doc = (pages: PageText[]): DocumentText => ({
  status: 'success',
  errors: [],
  sniffed: { kind: 'pdf', mime: 'application/pdf', bytes: 1 } as DocumentText['sniffed'],
  pageCount: pages.length,
  pages,
  method: 'text',
});
const premiumOf = (p: PageText) => extractByRules([p], 'personal_auto').find((c) => c.pointer === '/policy/premium')?.value ?? null;

test('a premium for one vehicle, or a bare number after a premium label, is not the policy premium', (t) => {
  t.is(premiumOf(page([[50, 100, 'Total premium for 2010 DODGE']])), null);
  t.is(premiumOf(page([[50, 100, 'Total premium for 2010 DODGE   $512.00']])), null);
  t.is(premiumOf(page([[50, 100, 'Total Premium: 2010']])), null);
  t.is(premiumOf(page([[50, 100, 'Total Premium: $1,184.50']])), 1184.5);
  t.is(
    premiumOf(
      page([
        [50, 100, 'Total Policy Premium'],
        [300, 100, '2,210.00'],
      ]),
    ),
    2210,
  );
});

test('a record whose required field needs review is partial, and lists it; one fully supported is completed', async (t) => {
  const facts: [number, number, string][] = [
    [50, 70, 'Policy Number: HL-5521-009'],
    [50, 85, 'Policy Period: 01/01/2025 to 07/01/2025'],
    [50, 100, 'Named Insured: John Q Smith'],
  ];
  // Every core field found, but the carrier only as a brand in the header (no legal name): a reviewer must check it.
  const brand = await extractFromText(doc([page([[50, 40, 'GEICO'], ...facts])]), { entityType: 'auto_policy' });
  t.is(brand.extracted_data.policy.provider, 'GEICO');
  t.true(brand.extracted_data.citations['/policy/provider'].confidence < 0.7);
  t.deepEqual(brand.extracted_data.needs_review, ['/policy/provider']);
  t.is(brand.parsing_status, 'partial');
  const legal = await extractFromText(doc([page([[50, 40, 'Harbor Light Insurance Company'], ...facts])]), { entityType: 'auto_policy' });
  t.deepEqual(legal.extracted_data.needs_review, []);
  t.is(legal.parsing_status, 'completed');
});
