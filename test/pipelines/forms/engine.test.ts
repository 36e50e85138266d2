import { readFileSync } from 'node:fs';
import test from 'ava';
import { OPERATORS_BY_TYPE, evaluate, isEmptyValue, nextStep, parseIsoDate, parseNumber, testCondition } from '../../../pipelines/forms/engine.ts';
import { OPERATORS, QUESTION_TYPES, type Operator, type QuestionType } from '../../../pipelines/forms/schema.ts';
import { YES_NO, c, form, q, rule, skip, step } from './build.ts';

const show = (v: unknown) => (typeof v === 'number' || v === undefined ? String(v) : JSON.stringify(v));

// ---- parsing ---------------------------------------------------------------------------------------

const numbers: [unknown, number | null][] = [
  [1200, 1200],
  [-3.5, -3.5],
  [0, 0],
  ['1200', 1200],
  ['  42 ', 42],
  ['-3.5', -3.5],
  ['+4', 4],
  ['.5', 0.5],
  ['1,200', 1200],
  ['1,200.50', 1200.5],
  ['1,234,567.89', 1234567.89],
  ['-1,000', -1000],
  ['1,20', null],
  ['12,34,567', null],
  ['1,2345', null],
  ['1e3', null],
  ['$100', null],
  ['100 USD', null],
  ['1.2.3', null],
  ['', null],
  ['   ', null],
  ['abc', null],
  [Number.POSITIVE_INFINITY, null],
  [Number.NaN, null],
  [true, null],
  [null, null],
  [undefined, null],
  [[1], null],
];
for (const [input, expected] of numbers) {
  test(`parseNumber(${show(input)}) → ${expected}`, (t) => t.is(parseNumber(input), expected));
}

const dates: [unknown, string | null][] = [
  ['2024-02-29', '2024-02-29'],
  ['2000-02-29', '2000-02-29'],
  [' 2024-01-01 ', '2024-01-01'],
  ['1999-12-31', '1999-12-31'],
  ['2023-02-29', null],
  ['1900-02-29', null],
  ['2024-04-31', null],
  ['2024-13-01', null],
  ['2024-00-10', null],
  ['2024-01-00', null],
  ['0000-01-01', null],
  ['2024-1-01', null],
  ['24-01-01', null],
  ['2024/01/01', null],
  ['01/02/2024', null],
  ['2024-01-01T00:00:00Z', null],
  ['garbage', null],
  ['', null],
  [20240101, null],
  [null, null],
];
for (const [input, expected] of dates) {
  test(`parseIsoDate(${show(input)}) → ${expected}`, (t) => t.is(parseIsoDate(input), expected));
}

const empties: [unknown, boolean][] = [
  [null, true],
  [undefined, true],
  ['', true],
  ['   \n\t', true],
  [[], true],
  [[null, ''], true],
  [{}, true],
  [{ line1: ' ', city: null }, true],
  [[{}, { a: '' }], true],
  [Number.NaN, true],
  [0, false],
  [false, false],
  ['x', false],
  [[0], false],
  [{ line1: '1 Main St' }, false],
  [[{ a: 'x' }], false],
];
for (const [input, expected] of empties) {
  test(`isEmptyValue(${show(input)}) → ${expected}`, (t) => t.is(isEmptyValue(input), expected));
}

// ---- every operator × every question type it applies to ------------------------------------------

type Case = [Operator, string | number | undefined, unknown, boolean];
const TEXT: Case[] = [
  ['equals', 'Hello', 'Hello', true],
  ['equals', 'Hello', '  hello ', true],
  ['equals', 'Hello', 'help', false],
  ['equals', 'Hello', '', false],
  ['equals', 'Hello', null, false],
  ['equals', 'Hello', ['Hello'], false],
  ['notEquals', 'Hello', 'world', true],
  ['notEquals', 'Hello', 'HELLO', false],
  ['notEquals', 'Hello', null, true],
  ['contains', 'ell', 'Hello', true],
  ['contains', 'ELL', 'hello', true],
  ['contains', 'ell', 'abc', false],
  ['contains', 'ell', null, false],
  ['notContains', 'ell', 'Hello', false],
  ['notContains', 'ell', 'abc', true],
  ['notContains', 'ell', undefined, true],
  ['isEmpty', undefined, '', true],
  ['isEmpty', undefined, '  ', true],
  ['isEmpty', undefined, null, true],
  ['isEmpty', undefined, undefined, true],
  ['isEmpty', undefined, 'x', false],
  ['isNotEmpty', undefined, 'x', true],
  ['isNotEmpty', undefined, ' ', false],
];
const NUMBER: Case[] = [
  ['equals', 1200, 1200, true],
  ['equals', 1200, '1,200', true],
  ['equals', 1200, '1200.0', true],
  ['equals', 1200, '1,20', false],
  ['equals', 1200, 'abc', false],
  ['equals', 1200, null, false],
  ['notEquals', 5, 6, true],
  ['notEquals', 5, '5', false],
  ['notEquals', 5, '', true],
  ['greaterThan', 10, 11, true],
  ['greaterThan', 10, '10.5', true],
  ['greaterThan', 10, 10, false],
  ['greaterThan', 10, '-11', false],
  ['greaterThan', 10, null, false],
  ['greaterThan', 10, 'lots', false],
  ['greaterThan', -1, 0, true],
  ['lessThan', 10, 9.99, true],
  ['lessThan', 10, 10, false],
  ['lessThan', 10, '1,000', false],
  ['lessThan', 10, null, false],
  ['lessThan', 10, '', false],
  ['isEmpty', undefined, 0, false],
  ['isEmpty', undefined, '', true],
  ['isEmpty', undefined, Number.NaN, true],
  ['isNotEmpty', undefined, 0, true],
  ['isNotEmpty', undefined, null, false],
];
const DATE: Case[] = [
  ['equals', '2024-02-29', '2024-02-29', true],
  ['equals', '2024-02-29', ' 2024-02-29 ', true],
  ['equals', '2024-02-29', '2024-2-29', false],
  ['equals', '2023-03-01', '2023-02-29', false],
  ['notEquals', '2024-01-01', '2024-01-02', true],
  ['notEquals', '2024-01-01', '2024-01-01', false],
  ['notEquals', '2024-01-01', null, true],
  ['before', '2024-01-01', '2023-12-31', true],
  ['before', '2024-01-01', '2024-01-01', false],
  ['before', '2024-01-01', '2024-01-02', false],
  ['before', '2024-01-01', 'garbage', false],
  ['before', '2024-01-01', null, false],
  ['after', '2024-01-01', '2024-01-02', true],
  ['after', '2024-01-01', '2024-01-01', false],
  ['after', '2024-01-01', '2023-06-30', false],
  ['after', '2024-01-01', '', false],
  ['greaterThan', '2024-01-01', '2025-01-01', true],
  ['greaterThan', '2024-01-01', '2023-01-01', false],
  ['lessThan', '2024-01-01', '2023-01-01', true],
  ['lessThan', '2024-01-01', '2024-13-01', false],
  ['isEmpty', undefined, '', true],
  ['isEmpty', undefined, '2024-01-01', false],
  ['isNotEmpty', undefined, '2024-01-01', true],
  ['isNotEmpty', undefined, null, false],
];
const CHOICE: Case[] = [
  ['equals', 'Yes', 'Yes', true],
  ['equals', 'Yes', 'yes', false],
  ['equals', 'Yes', 'No', false],
  ['equals', 'Yes', null, false],
  ['equals', 'Yes', ['Yes'], false],
  ['notEquals', 'Yes', 'No', true],
  ['notEquals', 'Yes', 'Yes', false],
  ['notEquals', 'Yes', null, true],
  ['isEmpty', undefined, '', true],
  ['isEmpty', undefined, 'Yes', false],
  ['isNotEmpty', undefined, 'No', true],
  ['isNotEmpty', undefined, undefined, false],
];
const MULTI: Case[] = [
  ['contains', 'Auto', ['Auto', 'Home'], true],
  ['contains', 'Auto', ['Home'], false],
  ['contains', 'Auto', ['auto'], false],
  ['contains', 'Auto', [], false],
  ['contains', 'Auto', 'Auto', true],
  ['contains', 'Auto', null, false],
  ['notContains', 'Auto', ['Auto', 'Home'], false],
  ['notContains', 'Auto', ['Home'], true],
  ['notContains', 'Auto', [], true],
  ['notContains', 'Auto', null, true],
  ['isEmpty', undefined, [], true],
  ['isEmpty', undefined, [''], true],
  ['isEmpty', undefined, ['Auto'], false],
  ['isNotEmpty', undefined, ['Auto'], true],
  ['isNotEmpty', undefined, [], false],
];
const FILE: Case[] = [
  ['isEmpty', undefined, [], true],
  ['isEmpty', undefined, null, true],
  ['isEmpty', undefined, [{ filename: 'a.pdf', content_type: 'application/pdf', url: 'https://x/a' }], false],
  ['isNotEmpty', undefined, [{ filename: 'a.pdf', content_type: 'application/pdf', url: 'https://x/a' }], true],
  ['isNotEmpty', undefined, [], false],
];
const ADDRESS: Case[] = [
  ['isEmpty', undefined, {}, true],
  ['isEmpty', undefined, { line1: '  ', city: '' }, true],
  ['isEmpty', undefined, { line1: '1 Main St' }, false],
  ['isNotEmpty', undefined, { line1: '1 Main St', city: 'Austin' }, true],
  ['isNotEmpty', undefined, null, false],
];
const TABLE: Case[] = [
  ['isEmpty', undefined, [], true],
  ['isEmpty', undefined, [{}], true],
  ['isEmpty', undefined, [{ make: '' }], true],
  ['isEmpty', undefined, [{ make: 'Ford' }], false],
  ['isNotEmpty', undefined, [{ make: 'Ford' }], true],
  ['isNotEmpty', undefined, [{ make: ' ' }], false],
];

const casesByType: Record<QuestionType, Case[]> = {
  short_text: TEXT,
  long_text: TEXT,
  email: TEXT,
  number: NUMBER,
  date: DATE,
  dropdown: CHOICE,
  single_choice: CHOICE,
  multi_choice: MULTI,
  file_upload: FILE,
  address: ADDRESS,
  data_table: TABLE,
};

for (const type of QUESTION_TYPES) {
  for (const [operator, value, answer, expected] of casesByType[type]) {
    test(`${type} ${operator} ${value === undefined ? '' : show(value)} on ${show(answer)} → ${expected}`, (t) => {
      t.is(testCondition(type, { operator, value }, answer), expected);
    });
  }
  test(`${type}: the cases cover every operator that applies to it`, (t) => {
    const covered = new Set(casesByType[type].map(([op]) => op));
    t.deepEqual([...covered].sort(), [...OPERATORS_BY_TYPE[type]].sort());
  });
  test(`${type}: operators that do not apply never hold (except the negations)`, (t) => {
    for (const operator of OPERATORS.filter((o) => !OPERATORS_BY_TYPE[type].includes(o))) {
      const answer = type === 'multi_choice' || type === 'file_upload' || type === 'data_table' ? ['x'] : 'x';
      const holds = testCondition(type, { operator, value: 'x' }, answer);
      t.is(holds, operator === 'notEquals' || operator === 'notContains', `${operator}`);
    }
  });
}

test('evaluate applies every operator case through a show rule, and through a skip', (t) => {
  for (const type of QUESTION_TYPES) {
    const extra =
      type === 'dropdown' || type === 'single_choice' || type === 'multi_choice'
        ? { options: ['Yes', 'No', 'Auto', 'Home'] }
        : type === 'data_table'
          ? { settings: { columns: [{ id: 'make', label: 'Make', type: 'short_text' }] } }
          : {};
    for (const [operator, value, answer, expected] of casesByType[type]) {
      const condition = value === undefined ? c('src', operator) : c('src', operator, value);
      const shown = form(step('a', [q('src', type, extra), q('target', 'short_text', { initially_hidden: true, rules: [rule('show', [condition])] })]));
      const answers = answer === undefined ? {} : { src: answer };
      t.is(evaluate(shown, answers).questions.target.visible, expected, `${type} ${operator} show`);
      const skipping = form(
        step('a', [q('src', type, { ...extra, rules: [skip('c', condition)] })]),
        step('b', [q('b1', 'short_text')]),
        step('c', [q('c1', 'short_text')]),
      );
      t.deepEqual(evaluate(skipping, answers).path, expected ? [0, 2] : [0, 1, 2], `${type} ${operator} skip`);
    }
  }
});

test('a condition on an unknown question type only answers presence', (t) => {
  t.true(testCondition(undefined, { operator: 'isEmpty' }, undefined));
  t.false(testCondition(undefined, { operator: 'equals', value: 'x' }, 'x'));
});

// ---- evaluate: visibility, requirement -------------------------------------------------------------

const showForm = form(
  step('s1', [
    q('has_pool', 'single_choice', { options: YES_NO, required: true }),
    q('pool_fenced', 'single_choice', { options: YES_NO, initially_hidden: true, required: true, rules: [rule('show', [c('has_pool', 'equals', 'Yes')])] }),
  ]),
);

test('an initially hidden question appears when its show rule fires', (t) => {
  t.deepEqual(evaluate(showForm, {}).visible, ['has_pool']);
  t.deepEqual(evaluate(showForm, { has_pool: 'No' }).visible, ['has_pool']);
  const e = evaluate(showForm, { has_pool: 'Yes' });
  t.deepEqual(e.visible, ['has_pool', 'pool_fenced']);
  t.deepEqual(e.required, ['has_pool', 'pool_fenced']);
});

test('a required question is not required while hidden', (t) => {
  const e = evaluate(showForm, { has_pool: 'No' });
  t.false(e.questions.pool_fenced.required);
  t.false(e.questions.pool_fenced.visible);
  t.deepEqual(e.required, ['has_pool']);
});

test('a hide rule hides a visible question', (t) => {
  const f = form(step('s', [q('a', 'short_text'), q('b', 'short_text', { rules: [rule('hide', [c('a', 'isNotEmpty')])] })]));
  t.deepEqual(evaluate(f, {}).visible, ['a', 'b']);
  t.deepEqual(evaluate(f, { a: 'x' }).visible, ['a']);
});

test('conflict: when show and hide both fire, hide wins whatever the order', (t) => {
  for (const rules of [
    [rule('show', [c('a', 'equals', 'x')]), rule('hide', [c('a', 'contains', 'x')])],
    [rule('hide', [c('a', 'contains', 'x')]), rule('show', [c('a', 'equals', 'x')])],
  ]) {
    const f = form(step('s', [q('a', 'short_text'), q('b', 'short_text', { initially_hidden: true, rules })]));
    t.false(evaluate(f, { a: 'x' }).questions.b.visible);
    t.true(evaluate(f, { a: 'xy' }).questions.b.visible === false); // hide fires, show does not
  }
  const f = form(
    step('s', [
      q('a', 'short_text'),
      q('b', 'short_text', { initially_hidden: true, rules: [rule('show', [c('a', 'equals', 'x')]), rule('hide', [c('a', 'equals', 'y')])] }),
    ]),
  );
  t.true(evaluate(f, { a: 'x' }).questions.b.visible);
});

test('a show rule on a question that is not initially hidden changes nothing', (t) => {
  const f = form(step('s', [q('a', 'short_text'), q('b', 'short_text', { rules: [rule('show', [c('a', 'equals', 'x')])] })]));
  t.true(evaluate(f, {}).questions.b.visible);
});

test('a require rule makes a visible question required', (t) => {
  const f = form(
    step('s', [q('year', 'number'), q('updates', 'multi_choice', { options: ['Roof'], rules: [rule('require', [c('year', 'lessThan', 1950)])] })]),
  );
  t.false(evaluate(f, { year: 1990 }).questions.updates.required);
  t.true(evaluate(f, { year: '1,900' }).questions.updates.required);
  t.false(evaluate(f, {}).questions.updates.required);
});

test('a require rule does not make a hidden question required', (t) => {
  const f = form(
    step('s', [q('a', 'short_text'), q('b', 'short_text', { rules: [rule('hide', [c('a', 'equals', 'hide')]), rule('require', [c('a', 'isNotEmpty')])] })]),
  );
  t.true(evaluate(f, { a: 'keep' }).questions.b.required);
  t.false(evaluate(f, { a: 'hide' }).questions.b.required);
  t.deepEqual(evaluate(f, { a: 'hide' }).required, []);
});

test('all needs every condition, any needs one', (t) => {
  const conditions = [c('a', 'equals', 'x'), c('b', 'greaterThan', 5)];
  const make = (mode: 'all' | 'any') =>
    form(
      step('s', [
        q('a', 'short_text'),
        q('b', 'number'),
        q('t', 'short_text', { initially_hidden: true, rules: [rule('show', conditions, { condition_mode: mode })] }),
      ]),
    );
  const cases: [Record<string, unknown>, boolean, boolean][] = [
    [{}, false, false],
    [{ a: 'x' }, false, true],
    [{ b: 6 }, false, true],
    [{ a: 'x', b: 6 }, true, true],
    [{ a: 'y', b: 5 }, false, false],
  ];
  for (const [answers, all, any] of cases) {
    t.is(evaluate(make('all'), answers).questions.t.visible, all, `all ${JSON.stringify(answers)}`);
    t.is(evaluate(make('any'), answers).questions.t.visible, any, `any ${JSON.stringify(answers)}`);
  }
});

test('chains: a hidden question counts as unanswered for the rules after it', (t) => {
  const f = form(
    step('s1', [
      q('a', 'single_choice', { options: YES_NO }),
      q('b', 'short_text', { initially_hidden: true, rules: [rule('show', [c('a', 'equals', 'Yes')])] }),
    ]),
    step('s2', [
      q('c', 'short_text', { initially_hidden: true, rules: [rule('show', [c('b', 'isNotEmpty')])] }),
      q('d', 'short_text', { rules: [rule('hide', [c('c', 'isEmpty')])] }),
    ]),
  );
  const on = evaluate(f, { a: 'Yes', b: 'hello', c: 'there' });
  t.deepEqual(on.visible, ['a', 'b', 'c', 'd']);
  const off = evaluate(f, { a: 'No', b: 'hello', c: 'there' });
  t.deepEqual(off.visible, ['a']);
  t.deepEqual(off.effective_answers, { a: 'No' });
});

test('a rule that (wrongly) refers to a later question sees it as unanswered', (t) => {
  const f = form(step('s', [q('a', 'short_text', { initially_hidden: true, rules: [rule('show', [c('b', 'isNotEmpty')])] }), q('b', 'short_text')]));
  t.false(evaluate(f, { b: 'x' }).questions.a.visible);
});

test('a rule on an unknown question sees it as unanswered', (t) => {
  const f = form(step('s', [q('a', 'short_text', { rules: [rule('hide', [c('ghost', 'isEmpty')])] })]));
  t.false(evaluate(f, { ghost: 'x' }).questions.a.visible);
});

// ---- evaluate: flow ----------------------------------------------------------------------------------

const flowForm = form(
  step('start', [
    q('route', 'single_choice', {
      options: ['A', 'B', 'C'],
      required: true,
      rules: [skip('third', c('route', 'equals', 'B')), rule('end_form', [c('route', 'equals', 'C')])],
    }),
  ]),
  step('second', [q('s2', 'short_text', { required: true })]),
  step('third', [q('s3', 'number', { rules: [rule('hide', [c('s2', 'isNotEmpty')])] })]),
  step('fourth', [q('s4', 'date')]),
);

test('without flow rules the path is every step in order', (t) => {
  const e = evaluate(flowForm, { route: 'A' });
  t.deepEqual(e.path, [0, 1, 2, 3]);
  t.deepEqual(e.path_step_ids, ['start', 'second', 'third', 'fourth']);
  t.false(e.ended_by_rule);
  t.deepEqual(e.steps[3].next, { kind: 'end', reason: 'last_step' });
});

test('skip_to_step jumps forward; skipped questions are invisible and their answers dropped', (t) => {
  const e = evaluate(flowForm, { route: 'B', s2: 'typed earlier', s3: 5 });
  t.deepEqual(e.path, [0, 2, 3]);
  t.deepEqual(e.steps[0].next, { kind: 'step', index: 2, step_id: 'third', reason: 'skip_to_step' });
  t.false(e.steps[1].on_path);
  t.is(e.steps[1].next, null);
  t.false(e.questions.s2.visible);
  t.false(e.questions.s2.on_path);
  t.false(e.questions.s2.required);
  // s3's hide rule tests s2, which was skipped, so s3 stays visible
  t.true(e.questions.s3.visible);
  t.deepEqual(e.effective_answers, { route: 'B', s3: 5 });
});

test('end_form stops the walk after the current step', (t) => {
  const e = evaluate(flowForm, { route: 'C', s2: 'x' });
  t.deepEqual(e.path, [0]);
  t.true(e.ended_by_rule);
  t.deepEqual(e.steps[0].next, { kind: 'end', reason: 'end_form' });
  t.deepEqual(e.visible, ['route']);
  t.deepEqual(e.required, ['route']);
  t.deepEqual(e.effective_answers, { route: 'C' });
});

test('conflict: the first flow rule in document order that fires decides', (t) => {
  const make = (rules: ReturnType<typeof rule>[]) =>
    form(step('a', [q('x', 'number', { rules })]), step('b', [q('y', 'short_text')]), step('c', [q('z', 'short_text')]));
  const skipFirst = make([skip('c', c('x', 'greaterThan', 1)), rule('end_form', [c('x', 'greaterThan', 2)])]);
  t.deepEqual(evaluate(skipFirst, { x: 5 }).path, [0, 2]);
  const endFirst = make([rule('end_form', [c('x', 'greaterThan', 2)]), skip('c', c('x', 'greaterThan', 1))]);
  t.deepEqual(evaluate(endFirst, { x: 5 }).path, [0]);
  t.deepEqual(evaluate(endFirst, { x: 2 }).path, [0, 2]);
  const continueFirst = make([rule('continue', [c('x', 'lessThan', 10)]), skip('c', c('x', 'greaterThan', 1))]);
  t.deepEqual(evaluate(continueFirst, { x: 5 }).path, [0, 1, 2]);
  t.deepEqual(evaluate(continueFirst, { x: 50 }).path, [0, 2]);
});

test('conflict: flow rules of earlier questions win over later questions of the same step', (t) => {
  const f = form(
    step('a', [
      q('x', 'short_text', { rules: [skip('c', c('x', 'isNotEmpty'))] }),
      q('y', 'short_text', { rules: [rule('end_form', [c('y', 'isNotEmpty')])] }),
    ]),
    step('b', [q('b1', 'short_text')]),
    step('c', [q('c1', 'short_text')]),
  );
  t.deepEqual(evaluate(f, { x: '1', y: '1' }).path, [0, 2]);
  t.deepEqual(evaluate(f, { y: '1' }).path, [0]);
});

test('flow rules of a hidden question do not fire', (t) => {
  const f = form(
    step('a', [
      q('gate', 'single_choice', { options: YES_NO }),
      q('x', 'short_text', { rules: [rule('hide', [c('gate', 'equals', 'No')]), rule('end_form', [c('gate', 'equals', 'No')])] }),
    ]),
    step('b', [q('b1', 'short_text')]),
  );
  t.deepEqual(evaluate(f, { gate: 'No' }).path, [0, 1]);
});

test('skip targets that are unknown or backwards behave like continue', (t) => {
  const f = form(
    step('a', [q('x', 'short_text')]),
    step('b', [q('y', 'short_text', { rules: [skip('a', c('y', 'isNotEmpty')), skip('nowhere', c('y', 'equals', 'go'))] })]),
    step('c', [q('z', 'short_text')]),
  );
  t.deepEqual(evaluate(f, { y: 'go' }).path, [0, 1, 2]);
  const g = form(step('a', [q('x', 'short_text', { rules: [skip('nowhere', c('x', 'isNotEmpty'))] })]), step('b', [q('y', 'short_text')]));
  t.deepEqual(evaluate(g, { x: 'go' }).path, [0, 1]);
});

test('skip to the step right after is the same as continue', (t) => {
  const f = form(step('a', [q('x', 'short_text', { rules: [skip('b', c('x', 'isNotEmpty'))] })]), step('b', [q('y', 'short_text')]));
  const e = evaluate(f, { x: '1' });
  t.deepEqual(e.path, [0, 1]);
  t.is(e.steps[0].next?.reason, 'skip_to_step');
});

test('skip_to_step on the last reachable step can end the form at a later step', (t) => {
  const f = form(
    step('a', [q('x', 'short_text', { rules: [skip('d', c('x', 'equals', 'jump'))] })]),
    step('b', [q('y', 'short_text', { rules: [rule('end_form', [c('y', 'equals', 'stop')])] })]),
    step('c', [q('z', 'short_text')]),
    step('d', [q('w', 'short_text')]),
  );
  t.deepEqual(evaluate(f, { x: 'jump', y: 'stop' }).path, [0, 3]);
  t.deepEqual(evaluate(f, { x: 'no', y: 'stop' }).path, [0, 1]);
});

test('an empty structure has an empty path', (t) => {
  const e = evaluate({ steps: [] }, { a: 1 });
  t.deepEqual(e.path, []);
  t.deepEqual(e.visible, []);
  t.deepEqual(e.effective_answers, {});
});

test('answers with undefined values are treated as absent', (t) => {
  const e = evaluate(showForm, { has_pool: undefined });
  t.deepEqual(e.effective_answers, {});
});

// ---- nextStep --------------------------------------------------------------------------------------

test('nextStep follows the rules of the given step', (t) => {
  t.deepEqual(nextStep(flowForm, { route: 'A' }, 0), { kind: 'step', index: 1, step_id: 'second', reason: 'continue' });
  t.deepEqual(nextStep(flowForm, { route: 'B' }, 0), { kind: 'step', index: 2, step_id: 'third', reason: 'skip_to_step' });
  t.deepEqual(nextStep(flowForm, { route: 'C' }, 0), { kind: 'end', reason: 'end_form' });
  t.deepEqual(nextStep(flowForm, { route: 'A' }, 3), { kind: 'end', reason: 'last_step' });
});

test('nextStep outside the form ends it', (t) => {
  t.deepEqual(nextStep(flowForm, {}, -1), { kind: 'end', reason: 'last_step' });
  t.deepEqual(nextStep(flowForm, {}, 4), { kind: 'end', reason: 'last_step' });
});

test('nextStep on a step off the current path still judges its own rules', (t) => {
  const f = form(
    step('a', [q('x', 'short_text', { rules: [skip('c', c('x', 'equals', 'skip'))] })]),
    step('b', [q('y', 'short_text', { rules: [rule('end_form', [c('y', 'equals', 'stop')])] })]),
    step('c', [q('z', 'short_text')]),
  );
  t.deepEqual(nextStep(f, { x: 'skip', y: 'stop' }, 1), { kind: 'end', reason: 'end_form' });
  t.deepEqual(nextStep(f, { x: 'skip', y: 'go' }, 1), { kind: 'step', index: 2, step_id: 'c', reason: 'continue' });
});

// ---- browser safety ----------------------------------------------------------------------------------

test('the engine imports nothing at run time, so it bundles for the browser', (t) => {
  const source = readFileSync(new URL('../../../pipelines/forms/engine.ts', import.meta.url), 'utf8');
  const imports = source.split('\n').filter((line) => /^\s*(import|export)\b.*\bfrom\b/.test(line));
  t.true(imports.length > 0);
  for (const line of imports) t.regex(line, /^import type /, line);
  t.notRegex(source, /\brequire\(|process\.|Buffer\b|node:/);
});

test('ids that name Object.prototype members or look like numbers behave like any other id', (t) => {
  const f = form(
    step('a', [
      q('constructor', 'short_text', { required: true }),
      q('toString', 'short_text', { initially_hidden: true, rules: [rule('show', [c('constructor', 'isNotEmpty')])] }),
      q('10', 'number'),
      q('2', 'number', { rules: [rule('hide', [c('10', 'greaterThan', 5)])] }),
    ]),
  );
  const empty = evaluate(f, {});
  t.deepEqual(empty.visible, ['constructor', '10', '2']);
  t.deepEqual(empty.required, ['constructor']);
  t.deepEqual(empty.effective_answers, {});
  const answered = evaluate(f, { constructor: 'x', 10: 6 });
  t.deepEqual(answered.visible, ['constructor', 'toString', '10']);
  t.deepEqual(answered.effective_answers, { constructor: 'x', 10: 6 });
});

test('answers objects without a prototype are read like plain ones', (t) => {
  const answers = Object.assign(Object.create(null) as Record<string, unknown>, { has_pool: 'Yes' });
  t.deepEqual(evaluate(showForm, answers).visible, ['has_pool', 'pool_fenced']);
});
