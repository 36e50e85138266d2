// What a reviewer may type as a correction, by the field's schema (http/schemas/reviews.ts).
import test from 'ava';
import { fieldKind, reviewedValue } from '../../http/schemas/reviews.ts';

const ok = (pointer: string, input: string) => {
  const r = reviewedValue(pointer, input);
  return r.ok ? r.value : `error: ${r.message}`;
};

test('dates, money, split limits, policy numbers, yes/no, years and text are typed by the field', (t) => {
  t.is(fieldKind('/policy/expiration_date'), 'date');
  t.is(ok('/policy/expiration_date', '2026-03-02'), '2026-03-02');
  t.is(ok('/policy/expiration_date', '3/2/2026'), '2026-03-02');
  t.regex(String(ok('/policy/expiration_date', '2026-13-01')), /^error: expected a date/);
  t.regex(String(ok('/policy/expiration_date', '2026-02-30')), /^error/);
  t.is(ok('/certificate/coverages/0/each_occurrence', '$1,000,000'), 1_000_000);
  t.regex(String(ok('/policy/premium', '12.50')), /^error: expected whole dollars/);
  t.is(ok('/coverages/1/limit', '100,000/300,000'), '100000/300000');
  t.is(ok('/coverages/1/limit', '500000'), 500_000);
  t.is(ok('/policy/policy_number', ' GL-88120045 '), 'GL-88120045');
  t.regex(String(ok('/policy/policy_number', 'GL<script>')), /^error/);
  t.is(ok('/certificate/coverages/2/subrogation_waived', 'Y'), true);
  t.is(ok('/certificate/coverages/2/subrogation_waived', 'no'), false);
  t.is(ok('/vehicles/0/year', '2021'), 2021);
  t.regex(String(ok('/vehicles/0/year', '21')), /^error/);
  t.is(ok('/policyholder/organization', ' Beacon  Hill Inc '), 'Beacon Hill Inc');
  t.regex(String(ok('/policyholder/organization', '   ')), /Not on the document/);
});
