// Where a quote sits on a page: the lines holding its first and last words, a line of context around them.
import test from 'ava';
import type { PageText } from '../../../pipelines/documents/layout.ts';
import { quoteBox } from '../../../pipelines/reports/crop.ts';

const texts = [
  '12. USE. The Premises shall be used for offices.',
  '13. INSURANCE. Tenant shall maintain commercial general liability',
  'insurance with limits of not less than $1,000,000 per occurrence',
  'and $2,000,000 in the aggregate.',
  '14. ASSIGNMENT. Tenant shall not assign this Lease.',
  '15. NOTICES. Notices shall be in writing.',
];
const page: PageText = {
  page: 1,
  width: 612,
  height: 792,
  source: 'text',
  lines: texts.map((text, i) => ({ text, x: 72 + (i === 2 ? 10 : 0), y: 100 + i * 20, w: 400, h: 12, cells: [] })),
  blocks: [],
  text: texts.join('\n'),
  confidence: 1,
  fields: [],
};

test('the box spans the quoted lines and one line either side, as wide as they are', (t) => {
  const box = quoteBox(
    page,
    'Tenant shall maintain commercial general liability insurance with limits of not less than $1,000,000 per occurrence and $2,000,000 in the aggregate.',
  );
  t.truthy(box);
  // Lines 1–3 quoted, 0 and 4 kept as context; a margin of 0.4 line heights.
  t.is(Math.round(box!.y), Math.round(100 - 4.8));
  t.is(Math.round(box!.y + box!.h), Math.round(180 + 12 + 4.8));
  t.is(Math.round(box!.x), Math.round(72 - 4.8));
  t.is(Math.round(box!.x + box!.w), Math.round(482 + 4.8));
});

test('a quote starting mid-line is found; one not on the page is not', (t) => {
  t.truthy(quoteBox(page, 'Tenant shall not assign this Lease.'));
  t.is(quoteBox(page, 'The landlord shall repair the roof.'), null);
  t.is(quoteBox(page, ''), null);
});
