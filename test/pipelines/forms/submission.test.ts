import test from 'ava';
import { validateSubmission } from '../../../pipelines/forms/engine.ts';
import { YES_NO, c, form, q, rule, skip, step } from './build.ts';

const f = form(
  step('a', [
    q('name', 'short_text', { required: true, settings: { max_length: 10 } }),
    q('bio', 'long_text'),
    q('email', 'email'),
    q('revenue', 'number', { settings: { min: 0, max: 1_000_000 } }),
    q('units', 'number', { settings: { integer: true } }),
    q('start', 'date', { settings: { min: '2024-01-01', max: '2030-12-31' } }),
    q('state', 'dropdown', { options: ['TX', 'CA'] }),
    q('pool', 'single_choice', { options: YES_NO, required: true, rules: [skip('c', c('pool', 'equals', 'No'))] }),
    q('fenced', 'single_choice', { options: YES_NO, initially_hidden: true, required: true, rules: [rule('show', [c('pool', 'equals', 'Yes')])] }),
    q('lines', 'multi_choice', { options: ['Auto', 'Home', 'Boat'], settings: { min_selected: 1, max_selected: 2 } }),
  ]),
  step('b', [
    q('docs', 'file_upload', { settings: { accept: ['.pdf', 'image/*'], max_files: 2, max_file_bytes: 1000 } }),
    q('addr', 'address'),
    q('drivers', 'data_table', {
      settings: {
        columns: [
          { id: 'name', label: 'Name', type: 'short_text', required: true },
          { id: 'dob', label: 'Birth date', type: 'date' },
          { id: 'rel', label: 'Relationship', type: 'dropdown', options: ['Self', 'Spouse'] },
          { id: 'years', label: 'Years licensed', type: 'number' },
          { id: 'mail', label: 'Email', type: 'email' },
        ],
        min_rows: 1,
        max_rows: 2,
      },
    }),
  ]),
  step('c', [q('notes', 'short_text')]),
);

const base = { name: 'Ann', pool: 'Yes', fenced: 'No' };
const check = (answers: Record<string, unknown>) => validateSubmission(f, answers);
const only = (answers: Record<string, unknown>) => check({ ...base, ...answers }).errors.map((e) => [e.path, e.code]);

test('a complete submission passes and comes back normalised', (t) => {
  const r = check({
    ...base,
    name: '  Ann  ',
    revenue: '1,200.50',
    units: 12,
    start: '2025-06-01',
    state: 'TX',
    lines: ['Auto', 'Auto', 'Home'],
    docs: [{ filename: 'dec.PDF', content_type: 'application/pdf', url: 'https://files/x', size: 900 }],
    addr: { line1: '1 Main St', line2: '', city: 'Austin', state: 'TX', postal_code: '78701' },
    drivers: [
      { name: 'Ann', dob: '1980-01-02', rel: 'Self', years: '20' },
      { name: '', dob: '' },
    ],
    notes: 'hi',
  });
  t.deepEqual(r.errors, []);
  t.true(r.ok);
  t.deepEqual(r.answers, {
    name: 'Ann',
    revenue: 1200.5,
    units: 12,
    start: '2025-06-01',
    state: 'TX',
    pool: 'Yes',
    fenced: 'No',
    lines: ['Auto', 'Home'],
    docs: [{ filename: 'dec.PDF', content_type: 'application/pdf', url: 'https://files/x', size: 900 }],
    addr: { line1: '1 Main St', city: 'Austin', state: 'TX', postal_code: '78701' },
    drivers: [{ name: 'Ann', dob: '1980-01-02', rel: 'Self', years: 20 }],
    notes: 'hi',
  });
  t.deepEqual(r.dropped, []);
});

test('missing required answers are reported; blank text counts as missing', (t) => {
  t.deepEqual(
    check({}).errors.map((e) => [e.path, e.code]),
    [
      ['/answers/name', 'required'],
      ['/answers/pool', 'required'],
    ],
  );
  t.deepEqual(only({ name: '   ' }), [['/answers/name', 'required']]);
  t.deepEqual(only({ fenced: null }), [['/answers/fenced', 'required']]);
});

test('hidden and skipped answers are dropped, not errors', (t) => {
  const r = check({ name: 'Ann', pool: 'No', fenced: 'Yes', docs: [], notes: 'n', bogus: 1 });
  t.deepEqual(r.errors, []);
  t.deepEqual(r.answers, { name: 'Ann', pool: 'No', notes: 'n' });
  t.deepEqual(r.dropped, [
    { question_id: 'fenced', reason: 'hidden' },
    { question_id: 'docs', reason: 'not_on_path' },
    { question_id: 'bogus', reason: 'unknown_question' },
  ]);
});

test('type mismatches per question type', (t) => {
  t.deepEqual(only({ name: 42 }), [['/answers/name', 'invalid_type']]);
  t.deepEqual(only({ name: 'far too long here' }), [['/answers/name', 'out_of_range']]);
  t.deepEqual(only({ bio: ['x'] }), [['/answers/bio', 'invalid_type']]);
  t.deepEqual(only({ email: 'not-an-email' }), [['/answers/email', 'invalid_type']]);
  t.deepEqual(only({ revenue: 'a lot' }), [['/answers/revenue', 'invalid_type']]);
  t.deepEqual(only({ revenue: '1,20' }), [['/answers/revenue', 'invalid_type']]);
  t.deepEqual(only({ revenue: -1 }), [['/answers/revenue', 'out_of_range']]);
  t.deepEqual(only({ revenue: '2,000,000' }), [['/answers/revenue', 'out_of_range']]);
  t.deepEqual(only({ units: 1.5 }), [['/answers/units', 'invalid_type']]);
  t.deepEqual(only({ start: '2025-02-30' }), [['/answers/start', 'invalid_type']]);
  t.deepEqual(only({ start: '06/01/2025' }), [['/answers/start', 'invalid_type']]);
  t.deepEqual(only({ start: '2023-12-31' }), [['/answers/start', 'out_of_range']]);
  t.deepEqual(only({ start: '2031-01-01' }), [['/answers/start', 'out_of_range']]);
  t.deepEqual(only({ addr: 'Main St' }), [['/answers/addr', 'invalid_type']]);
  t.deepEqual(only({ drivers: { name: 'x' } }), [['/answers/drivers', 'invalid_type']]);
  t.deepEqual(only({ lines: 'Auto' }), [['/answers/lines', 'invalid_type']]);
  t.deepEqual(only({ docs: 'file.pdf' }), [['/answers/docs', 'invalid_type']]);
});

test('options not allowed', (t) => {
  t.deepEqual(only({ state: 'NY' }), [['/answers/state', 'option_not_allowed']]);
  t.deepEqual(only({ state: ['TX'] }), [['/answers/state', 'invalid_type']]);
  t.deepEqual(only({ fenced: 'yes' }), [['/answers/fenced', 'option_not_allowed']]);
  t.deepEqual(only({ lines: ['Auto', 'Plane'] }), [['/answers/lines', 'option_not_allowed']]);
  t.deepEqual(only({ lines: ['Auto', 'Home', 'Boat'] }), [['/answers/lines', 'too_many']]);
});

test('multi_choice min_selected applies to a non-empty answer; an empty one is simply absent', (t) => {
  const g = form(step('a', [q('m', 'multi_choice', { options: ['A', 'B', 'C'], settings: { min_selected: 2 } })]));
  t.deepEqual(
    validateSubmission(g, { m: ['A'] }).errors.map((e) => e.code),
    ['too_few'],
  );
  t.deepEqual(validateSubmission(g, { m: [] }).errors, []);
  t.deepEqual(validateSubmission(g, { m: [] }).answers, {});
});

test('file uploads: count, type and size', (t) => {
  const pdf = { filename: 'a.pdf', content_type: 'application/pdf' };
  t.deepEqual(only({ docs: [pdf, pdf, pdf] }), [['/answers/docs', 'too_many']]);
  t.deepEqual(only({ docs: [pdf, { filename: 'b.exe', content_type: 'application/octet-stream' }] }), [['/answers/docs/1', 'option_not_allowed']]);
  t.deepEqual(only({ docs: [{ filename: 'photo', content_type: 'image/jpeg' }] }), []);
  t.deepEqual(only({ docs: [{ filename: 'x.pdf' }] }), [['/answers/docs/0', 'invalid_type']]);
  t.deepEqual(only({ docs: [{ ...pdf, size: 5000 }] }), [['/answers/docs/0/size', 'out_of_range']]);
});

test('addresses need line1, city, state and postal code once started', (t) => {
  t.deepEqual(only({ addr: { line1: '1 Main St', city: 'Austin', state: 'TX' } }), [['/answers/addr/postal_code', 'required']]);
  t.deepEqual(only({ addr: { line1: '1 Main', city: 'A', state: 'TX', postal_code: '1', planet: 'Earth' } }), [['/answers/addr/planet', 'invalid_type']]);
  t.deepEqual(only({ addr: { line1: 1 } }), [['/answers/addr/line1', 'invalid_type']]);
  t.deepEqual(only({ addr: { line1: ' ', city: '' } }), []);
});

test('data tables: cells typed per column, required cells, unknown columns, row counts', (t) => {
  t.deepEqual(only({ drivers: [{ dob: '1980-01-01' }] }), [['/answers/drivers/0/name', 'required']]);
  t.deepEqual(only({ drivers: [{ name: 'A', dob: 'yesterday' }] }), [['/answers/drivers/0/dob', 'invalid_type']]);
  t.deepEqual(only({ drivers: [{ name: 'A' }, { name: 'B', rel: 'Cousin' }] }), [['/answers/drivers/1/rel', 'option_not_allowed']]);
  t.deepEqual(only({ drivers: [{ name: 'A', years: 'many' }] }), [['/answers/drivers/0/years', 'invalid_type']]);
  t.deepEqual(only({ drivers: [{ name: 'A', mail: 'nope' }] }), [['/answers/drivers/0/mail', 'invalid_type']]);
  t.deepEqual(only({ drivers: [{ name: 'A', colour: 'red' }] }), [['/answers/drivers/0/colour', 'invalid_type']]);
  t.deepEqual(only({ drivers: ['A'] }), [['/answers/drivers/0', 'invalid_type']]);
  t.deepEqual(only({ drivers: [{ name: 'A' }, { name: 'B' }, { name: 'C' }] }), [['/answers/drivers', 'too_many']]);
  // min_rows applies only when the table is answered; an empty optional table is just absent
  t.deepEqual(only({ drivers: [{ name: '' }] }), []);
});

test('a required data table with only blank rows is missing', (t) => {
  const g = form(step('a', [q('t', 'data_table', { required: true, settings: { columns: [{ id: 'x', label: 'X', type: 'short_text' }] } })]));
  t.deepEqual(
    validateSubmission(g, { t: [{ x: ' ' }] }).errors.map((e) => [e.path, e.code]),
    [['/answers/t', 'required']],
  );
  t.deepEqual(validateSubmission(g, { t: [{ x: 'y' }] }).errors, []);
});

test('a require rule makes an answer mandatory at submission', (t) => {
  const g = form(
    step('a', [q('year', 'number'), q('updates', 'multi_choice', { options: ['Roof'], rules: [rule('require', [c('year', 'lessThan', 1950)])] })]),
  );
  t.deepEqual(
    validateSubmission(g, { year: 1940 }).errors.map((e) => [e.path, e.code]),
    [['/answers/updates', 'required']],
  );
  t.deepEqual(validateSubmission(g, { year: 1990 }).errors, []);
});

test('errors carry the question label in the message', (t) => {
  const [e] = check({ pool: 'Yes', fenced: 'No' }).errors;
  t.is(e.question_id, 'name');
  t.regex(e.message, /^Label name: an answer is required$/);
});

test('the evaluation used for the check is returned', (t) => {
  const r = check({ ...base, pool: 'No' });
  t.deepEqual(r.evaluation.path, [0, 2]);
});

test('an answer keyed by an Object.prototype name is an unknown question, not a crash', (t) => {
  const r = validateSubmission(f, JSON.parse('{"name":"Ann","pool":"Yes","fenced":"No","constructor":"x","toString":1,"__proto__":{"a":1}}'));
  t.deepEqual(r.errors, []);
  t.deepEqual(
    r.dropped.map((d) => [d.question_id, d.reason]),
    [
      ['constructor', 'unknown_question'],
      ['toString', 'unknown_question'],
      ['__proto__', 'unknown_question'],
    ],
  );
});
