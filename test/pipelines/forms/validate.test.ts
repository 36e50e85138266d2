import test from 'ava';
import { formStructureSchema, type FormStructure } from '../../../pipelines/forms/schema.ts';
import { checkStructure, normalizeStructure, validateForPublish, validateStructure, type Problem } from '../../../pipelines/forms/validate.ts';
import { YES_NO, c, form, q, rule, skip, step } from './build.ts';

const paths = (problems: Problem[]) => problems.map((p) => p.path);
const problemsOf = (body: unknown) => {
  const r = validateStructure(body);
  return r.ok ? [] : r.problems;
};

// ---- shape (zod) -------------------------------------------------------------------------------------

test('a minimal body is accepted and normalised', (t) => {
  const r = validateStructure({ steps: [{ name: 'About you', questions: [{ type: 'short_text', label: 'Your name?' }] }] });
  t.true(r.ok);
  if (!r.ok) return;
  t.deepEqual(r.structure, {
    steps: [
      {
        id: 'about_you',
        type: 'custom',
        name: 'About you',
        segment: 'main',
        position: 0,
        questions: [{ id: 'your_name', type: 'short_text', label: 'Your name?', required: false, initially_hidden: false, rules: [] }],
      },
    ],
  });
});

test('the normalised structure is what GET returns and PATCH accepts again unchanged', (t) => {
  const r = validateStructure({
    steps: [
      {
        name: 'A',
        questions: [
          { type: 'dropdown', label: 'Pick', options: ['x', 'y'] },
          { id: 'n', type: 'number', label: 'N', required: true },
        ],
      },
      {
        id: 'second',
        name: 'B',
        questions: [
          {
            type: 'date',
            label: 'When',
            rules: [{ condition_mode: 'any', conditions: [{ source_question_id: 'n', operator: 'greaterThan', value: 3 }], action: 'require' }],
          },
        ],
      },
    ],
  });
  t.true(r.ok);
  if (!r.ok) return;
  t.deepEqual(formStructureSchema.parse(r.structure), r.structure);
  const again = validateStructure(r.structure);
  t.true(again.ok);
  if (again.ok) t.deepEqual(again.structure, r.structure);
});

test('generated ids never collide with explicit ones and are deterministic', (t) => {
  const body = {
    steps: [
      {
        name: 'Details',
        questions: [
          { id: 'name', type: 'short_text', label: 'x' },
          { type: 'short_text', label: 'Name' },
          { type: 'short_text', label: 'Name' },
          { type: 'short_text', label: '???' },
        ],
      },
      { id: 'details', name: 'Other', questions: [] },
      { name: 'Details', questions: [] },
    ],
  };
  const a = validateStructure(body);
  const b = validateStructure(body);
  t.true(a.ok);
  if (!a.ok || !b.ok) return;
  t.deepEqual(a, b);
  t.deepEqual(
    a.structure.steps[0].questions.map((x) => x.id),
    ['name', 'name_2', 'name_3', 'question'],
  );
  t.deepEqual(
    a.structure.steps.map((s) => s.id),
    ['details_2', 'details', 'details_3'],
  );
});

test('normalizeStructure keeps explicit ids and positions', (t) => {
  const s = normalizeStructure({ steps: [{ id: 'x', type: 'custom', name: 'X', segment: 'main', position: 0, questions: [] }] });
  t.deepEqual(s.steps[0], { id: 'x', type: 'custom', name: 'X', segment: 'main', position: 0, questions: [] });
});

test('shape problems carry JSON pointers into the body', (t) => {
  const problems = problemsOf({
    steps: [
      {
        name: 'A',
        colour: 'red',
        questions: [
          { type: 'short_text', label: 'a', options: ['x'] },
          { type: 'dropdown', label: 'b' },
          { type: 'telepathy', label: 'c' },
          {
            type: 'short_text',
            label: 'd',
            rules: [{ condition_mode: 'all', conditions: [{ source_question_id: 'a', operator: 'resembles' }], action: 'show' }],
          },
          { type: 'short_text', label: '' },
          { id: 'bad id!', type: 'short_text', label: 'e' },
        ],
      },
    ],
  });
  t.deepEqual(paths(problems).sort(), [
    '/steps/0/colour',
    '/steps/0/questions/0/options',
    '/steps/0/questions/1/options',
    '/steps/0/questions/2/type',
    '/steps/0/questions/3/rules/0/conditions/0/operator',
    '/steps/0/questions/4/label',
    '/steps/0/questions/5/id',
  ]);
  t.regex(problems.find((p) => p.path === '/steps/0/questions/0/options')!.message, /only on dropdown, single_choice and multi_choice/);
});

test('a body that is not an object, or has no steps, is refused at the root', (t) => {
  t.deepEqual(paths(problemsOf(null)), ['']);
  t.deepEqual(paths(problemsOf({})), ['/steps']);
  t.deepEqual(paths(problemsOf({ steps: [], extra: 1 })), ['/extra']);
});

test('settings are checked per question type', (t) => {
  const problems = problemsOf({
    steps: [
      {
        name: 'A',
        questions: [
          { type: 'date', label: 'd', settings: { min: '2024-02-30' } },
          { type: 'file_upload', label: 'f', settings: { accept: ['PDF'], max_files: 0 } },
          { type: 'short_text', label: 's', settings: { columns: [] } },
          { type: 'data_table', label: 't' },
        ],
      },
    ],
  });
  t.deepEqual(paths(problems).sort(), [
    '/steps/0/questions/0/settings/min',
    '/steps/0/questions/1/settings/accept/0',
    '/steps/0/questions/1/settings/max_files',
    '/steps/0/questions/2/settings/columns',
    '/steps/0/questions/3/settings',
  ]);
});

test('cross-field settings are checked once the shape is right', (t) => {
  const problems = problemsOf({
    steps: [
      {
        name: 'A',
        questions: [
          { type: 'number', label: 'n', settings: { min: 5, max: 1 } },
          { type: 'date', label: 'd', settings: { min: '2024-03-01', max: '2024-02-01' } },
        ],
      },
    ],
  });
  t.deepEqual(paths(problems), ['/steps/0/questions/0/settings/min', '/steps/0/questions/1/settings/min']);
});

test('shape problems are reported alone: cross-field checks wait for a well-shaped body', (t) => {
  const problems = problemsOf({
    steps: [
      {
        name: 'A',
        questions: [
          { id: 'x', type: 'number', label: 'n', settings: { min: 5, max: 1 } },
          { id: 'x', type: 'nope', label: 'm' },
        ],
      },
    ],
  });
  t.deepEqual(paths(problems), ['/steps/0/questions/1/type']);
});

test('maxima are enforced', (t) => {
  const tooManySteps = { steps: Array.from({ length: 51 }, (_, i) => ({ name: `S${i}`, questions: [] })) };
  t.deepEqual(paths(problemsOf(tooManySteps)), ['/steps']);
  const bigStep = (n: number) => ({ name: 'S', questions: Array.from({ length: n }, (_, i) => ({ type: 'short_text', label: `q${i}` })) });
  t.deepEqual(paths(problemsOf({ steps: [bigStep(101)] })), ['/steps/0/questions']);
  t.deepEqual(paths(problemsOf({ steps: Array.from({ length: 6 }, () => bigStep(100)) })), ['/steps']);
  t.deepEqual(paths(problemsOf({ steps: [{ name: 'S', questions: [{ type: 'short_text', label: 'x'.repeat(501) }] }] })), ['/steps/0/questions/0/label']);
});

// ---- cross-field write-time rules ----------------------------------------------------------------------

test('question ids are unique across the form', (t) => {
  const f = form(step('a', [q('x', 'short_text')]), step('b', [q('y', 'short_text'), q('x', 'number')]));
  const problems = checkStructure(f);
  t.deepEqual(paths(problems), ['/steps/1/questions/1/id']);
  t.regex(problems[0].message, /duplicate question id "x" \(also \/steps\/0\/questions\/0\/id\)/);
});

test('step ids are unique', (t) => {
  t.deepEqual(paths(checkStructure(form(step('a', [q('x', 'short_text')]), step('a', [q('y', 'short_text')])))), ['/steps/1/id']);
});

test('positions match indices and segments are ordered', (t) => {
  const f: FormStructure = {
    steps: [
      { ...step('a', [q('x', 'short_text')], { segment: 'main' }), position: 0 },
      { ...step('b', [q('y', 'short_text')], { segment: 'before' }), position: 7 },
      { ...step('c', [q('z', 'short_text')], { segment: 'after' }), position: 2 },
      { ...step('d', [q('w', 'short_text')], { segment: 'main' }), position: 3 },
    ],
  };
  t.deepEqual(paths(checkStructure(f)), ['/steps/1/position', '/steps/1/segment', '/steps/3/segment']);
});

test('options and table columns are unique; dropdown columns need options and only they have them', (t) => {
  const f = form(
    step('a', [
      q('x', 'single_choice', { options: ['A', 'B', 'A'] }),
      q('t', 'data_table', {
        settings: {
          columns: [
            { id: 'c', label: 'C', type: 'dropdown' },
            { id: 'c', label: 'D', type: 'short_text', options: ['x'] },
            { id: 'e', label: 'E', type: 'dropdown', options: ['p', 'p'] },
          ],
          min_rows: 3,
          max_rows: 2,
        },
      }),
      q('m', 'multi_choice', { options: ['A'], settings: { min_selected: 2, max_selected: 1 } }),
    ]),
  );
  t.deepEqual(paths(checkStructure(f)), [
    '/steps/0/questions/0/options/2',
    '/steps/0/questions/1/settings/columns/1/id',
    '/steps/0/questions/1/settings/columns/0/options',
    '/steps/0/questions/1/settings/columns/1/options',
    '/steps/0/questions/1/settings/columns/2/options/1',
    '/steps/0/questions/1/settings/min_rows',
    '/steps/0/questions/2/settings/min_selected',
    '/steps/0/questions/2/settings/min_selected',
  ]);
});

const sources = () => [
  q('text', 'short_text'),
  q('long', 'long_text'),
  q('mail', 'email'),
  q('num', 'number'),
  q('day', 'date'),
  q('drop', 'dropdown', { options: ['A', 'B'] }),
  q('one', 'single_choice', { options: YES_NO }),
  q('many', 'multi_choice', { options: ['Auto', 'Home'] }),
  q('file', 'file_upload'),
  q('addr', 'address'),
  q('table', 'data_table', { settings: { columns: [{ id: 'c', label: 'C', type: 'short_text' }] } }),
];
const withConditions = (...conditions: ReturnType<typeof c>[]) =>
  form(
    step('src', sources()),
    step('t', [q('target', 'short_text', { initially_hidden: true, rules: [rule('show', conditions, { condition_mode: 'any' })] })]),
  );
const condPath = (i: number, field: string) => `/steps/1/questions/0/rules/0/conditions/${i}/${field}`;

test('operators must fit the source question type', (t) => {
  const bad = [
    c('num', 'before', 1),
    c('num', 'contains', 1),
    c('text', 'greaterThan', 'a'),
    c('text', 'before', 'a'),
    c('day', 'contains', '2024-01-01'),
    c('drop', 'contains', 'A'),
    c('one', 'greaterThan', 'Yes'),
    c('many', 'equals', 'Auto'),
    c('many', 'notEquals', 'Auto'),
    c('file', 'equals', 'x'),
    c('addr', 'contains', 'x'),
    c('table', 'greaterThan', 1),
  ];
  const problems = checkStructure(withConditions(...bad));
  t.deepEqual(
    paths(problems),
    bad.map((_, i) => condPath(i, 'operator')),
  );
  t.regex(problems[0].message, /before does not apply to a number question/);
});

test('every operator that fits its type is accepted with a fitting value', (t) => {
  const good = [
    c('text', 'equals', 'x'),
    c('text', 'notEquals', 'x'),
    c('long', 'contains', 'x'),
    c('mail', 'notContains', '@example.com'),
    c('text', 'isEmpty'),
    c('text', 'isNotEmpty', null),
    c('num', 'equals', 0),
    c('num', 'notEquals', -1.5),
    c('num', 'greaterThan', 10),
    c('num', 'lessThan', 10),
    c('day', 'equals', '2024-02-29'),
    c('day', 'notEquals', '2024-02-29'),
    c('day', 'before', '2024-02-29'),
    c('day', 'after', '2024-02-29'),
    c('day', 'greaterThan', '2024-02-29'),
    c('day', 'lessThan', '2024-02-29'),
    c('drop', 'equals', 'A'),
    c('one', 'notEquals', 'No'),
    c('many', 'contains', 'Auto'),
    c('many', 'notContains', 'Home'),
    c('many', 'isEmpty'),
    c('file', 'isNotEmpty'),
    c('addr', 'isEmpty'),
    c('table', 'isNotEmpty'),
  ];
  t.deepEqual(checkStructure(withConditions(...good)), []);
});

test('condition values must fit the source question type', (t) => {
  const bad = [
    c('num', 'equals', '5'),
    c('num', 'greaterThan'),
    c('day', 'before', '2023-02-29'),
    c('day', 'after', 20240101),
    c('day', 'equals', ' 2024-01-01'),
    c('drop', 'equals', 'C'),
    c('one', 'notEquals', 'yes'),
    c('many', 'contains', 'Boat'),
    c('text', 'equals', '  '),
    c('text', 'contains', 3),
    c('text', 'isEmpty', 'x'),
    c('file', 'isNotEmpty', 0),
  ];
  const problems = checkStructure(withConditions(...bad));
  t.deepEqual(
    paths(problems),
    bad.map((_, i) => condPath(i, 'value')),
  );
  t.regex(problems[5].message, /one of the options of "drop": A, B/);
});

test('a rule refers only to earlier questions', (t) => {
  const f = form(
    step('a', [
      q('first', 'short_text', {
        rules: [rule('show', [c('first', 'isNotEmpty')]), rule('hide', [c('second', 'isEmpty')]), rule('require', [c('later', 'isEmpty')])],
      }),
      q('second', 'short_text', {
        rules: [rule('end_form', [c('second', 'isNotEmpty')]), rule('continue', [c('first', 'isEmpty')]), skip('b', c('third', 'isEmpty'))],
      }),
      q('third', 'short_text', { rules: [rule('show', [c('ghost', 'isEmpty')])] }),
    ]),
    step('b', [q('later', 'short_text', { rules: [rule('hide', [c('first', 'equals', 'x'), c('third', 'isEmpty')])] })]),
  );
  const problems = checkStructure(f);
  t.deepEqual(paths(problems), [
    '/steps/0/questions/0/rules/0/conditions/0/source_question_id',
    '/steps/0/questions/0/rules/1/conditions/0/source_question_id',
    '/steps/0/questions/0/rules/2/conditions/0/source_question_id',
    '/steps/0/questions/1/rules/2/conditions/0/source_question_id',
    '/steps/0/questions/2/rules/0/conditions/0/source_question_id',
  ]);
  t.regex(problems[4].message, /no question has id "ghost"/);
  t.regex(problems[3].message, /flow rule may only test this question or earlier ones/);
});

test('target_step_id comes with skip_to_step and only with it', (t) => {
  const f = form(
    step('a', [q('x', 'short_text', { rules: [rule('skip_to_step', [c('x', 'isEmpty')]), rule('end_form', [c('x', 'isEmpty')], { target_step_id: 'b' })] })]),
    step('b', [q('y', 'short_text')]),
  );
  t.deepEqual(paths(checkStructure(f)), ['/steps/0/questions/0/rules/0/target_step_id', '/steps/0/questions/0/rules/1/target_step_id']);
});

test('a structure with more than 500 questions is refused', (t) => {
  const steps = Array.from({ length: 6 }, (_, s) =>
    step(
      `s${s}`,
      Array.from({ length: 90 }, (_, i) => q(`q${s}_${i}`, 'short_text')),
    ),
  );
  t.deepEqual(paths(checkStructure(form(...steps))), ['/steps']);
});

// ---- publish -------------------------------------------------------------------------------------------

test('publish refuses a form without steps', (t) => {
  t.deepEqual(paths(validateForPublish({ steps: [] })), ['/steps']);
});

test('publish refuses a form without questions, and empty steps', (t) => {
  t.deepEqual(paths(validateForPublish(form(step('a', []), step('b', [])))), ['/steps', '/steps/0/questions', '/steps/1/questions']);
  t.deepEqual(paths(validateForPublish(form(step('a', [q('x', 'short_text')]), step('b', [])))), ['/steps/1/questions']);
});

test('publish refuses skip targets that do not exist or go backwards', (t) => {
  const f = form(
    step('a', [q('x', 'short_text')]),
    step('b', [
      q('y', 'short_text', {
        rules: [skip('nowhere', c('y', 'equals', '1')), skip('a', c('y', 'equals', '2')), skip('b', c('y', 'equals', '3')), skip('c', c('y', 'equals', '4'))],
      }),
    ]),
    step('c', [q('z', 'short_text')]),
  );
  const problems = validateForPublish(f);
  t.deepEqual(paths(problems), [
    '/steps/1/questions/0/rules/0/target_step_id',
    '/steps/1/questions/0/rules/1/target_step_id',
    '/steps/1/questions/0/rules/2/target_step_id',
  ]);
  t.regex(problems[0].message, /no step has id "nowhere"/);
  t.regex(problems[1].message, /must go forward/);
});

test('publish refuses steps no path reaches, and required questions only on them', (t) => {
  // Both answers of a required choice skip past step b, so b is never shown.
  const f = form(
    step('a', [q('x', 'single_choice', { options: YES_NO, required: true, rules: [skip('c', c('x', 'equals', 'Yes')), skip('c', c('x', 'equals', 'No'))] })]),
    step('b', [q('y', 'short_text', { required: true }), q('y2', 'short_text'), q('y3', 'number', { rules: [rule('require', [c('x', 'equals', 'Yes')])] })]),
    step('c', [q('z', 'short_text')]),
  );
  const problems = validateForPublish(f);
  t.deepEqual(paths(problems), ['/steps/1', '/steps/1/questions/0/required', '/steps/1/questions/2/required']);
  t.regex(problems[0].message, /step "b" can never be reached/);
});

test('an end_form that always fires makes later steps unreachable and later flow rules dead', (t) => {
  const f = form(
    step('a', [
      q('x', 'short_text', { required: true, rules: [rule('end_form', [c('x', 'isNotEmpty')]), skip('c', c('x', 'equals', 'go'))] }),
      q('x2', 'short_text', { rules: [rule('continue', [c('x2', 'isEmpty')])] }),
    ]),
    step('b', [q('y', 'short_text')]),
    step('c', [q('z', 'short_text')]),
  );
  t.deepEqual(paths(validateForPublish(f)), ['/steps/0/questions/0/rules/1', '/steps/0/questions/1/rules/0', '/steps/1', '/steps/2']);
});

test('an `any` rule with an always-true condition always fires', (t) => {
  const f = form(
    step('a', [
      q('x', 'number', { required: true }),
      q('w', 'short_text', { rules: [rule('end_form', [c('w', 'equals', 'stop'), c('x', 'isNotEmpty')], { condition_mode: 'any' })] }),
    ]),
    step('b', [q('y', 'short_text')]),
  );
  t.deepEqual(paths(validateForPublish(f)), ['/steps/1']);
});

test('flow rules on a question that may be hidden, or an optional one, do not make steps unreachable', (t) => {
  const base = (extra: Parameters<typeof q>[2]) =>
    form(
      step('a', [
        q('gate', 'single_choice', { options: YES_NO }),
        q('x', 'single_choice', {
          options: YES_NO,
          ...extra,
          rules: [...(extra?.rules ?? []), skip('c', c('x', 'equals', 'Yes')), skip('c', c('x', 'equals', 'No'))],
        }),
      ]),
      step('b', [q('y', 'short_text')]),
      step('c', [q('z', 'short_text')]),
    );
  t.deepEqual(validateForPublish(base({ required: false })), []);
  t.deepEqual(validateForPublish(base({ required: true, rules: [rule('hide', [c('gate', 'equals', 'No')])] })), []);
  t.deepEqual(paths(validateForPublish(base({ required: true }))), ['/steps/1']);
});

test('publish refuses rules whose conditions contradict each other under all', (t) => {
  const contradictions: [ReturnType<typeof c>[], number][] = [
    [[c('one', 'equals', 'Yes'), c('one', 'equals', 'No')], 1],
    [[c('num', 'greaterThan', 10), c('num', 'lessThan', 5)], 1],
    [[c('num', 'greaterThan', 10), c('num', 'lessThan', 10)], 1],
    [[c('num', 'equals', 3), c('num', 'greaterThan', 5)], 1],
    [[c('num', 'lessThan', 2), c('num', 'equals', 3)], 1],
    [[c('day', 'after', '2024-01-01'), c('day', 'before', '2023-01-01')], 1],
    [[c('text', 'isEmpty'), c('text', 'isNotEmpty')], 1],
    [[c('text', 'equals', 'a'), c('text', 'isEmpty')], 1],
    [[c('text', 'equals', 'Abc'), c('text', 'notEquals', 'abc ')], 1],
    [[c('many', 'contains', 'Auto'), c('many', 'notContains', 'Auto')], 1],
    [[c('text', 'equals', 'a'), c('num', 'equals', 1), c('text', 'equals', 'b')], 2],
  ];
  for (const [conditions, at] of contradictions) {
    const f = form(step('src', sources()), step('t', [q('target', 'short_text', { rules: [rule('hide', conditions)] })]));
    const problems = validateForPublish(f);
    t.deepEqual(paths(problems), [`/steps/1/questions/0/rules/0/conditions/${at}`], JSON.stringify(conditions));
    t.regex(problems[0].message, /^rule can never fire/);
  }
});

test('the same conditions under any, or compatible ones under all, are fine', (t) => {
  const fine: [ReturnType<typeof c>[], 'all' | 'any'][] = [
    [[c('one', 'equals', 'Yes'), c('one', 'equals', 'No')], 'any'],
    [[c('num', 'greaterThan', 5), c('num', 'lessThan', 10)], 'all'],
    [[c('num', 'equals', 7), c('num', 'greaterThan', 5), c('num', 'lessThan', 10)], 'all'],
    [[c('text', 'isEmpty'), c('text', 'notEquals', 'x')], 'all'],
    [[c('many', 'contains', 'Auto'), c('many', 'notContains', 'Home')], 'all'],
    [[c('day', 'after', '2023-01-01'), c('day', 'before', '2024-01-01')], 'all'],
  ];
  for (const [conditions, condition_mode] of fine) {
    const f = form(step('src', sources()), step('t', [q('target', 'short_text', { rules: [rule('hide', conditions, { condition_mode })] })]));
    t.deepEqual(validateForPublish(f), [], JSON.stringify(conditions));
  }
});

test('publish refuses a rule testing a question that is never walked before it', (t) => {
  const f = form(
    step('a', [q('route', 'single_choice', { options: ['A', 'B'], required: true, rules: [skip('c', c('route', 'equals', 'A'))] })]),
    step('b', [q('s1', 'short_text', { required: true, rules: [skip('d', c('s1', 'isNotEmpty'))] })]),
    step('c', [
      q('r', 'short_text', { initially_hidden: true, rules: [rule('show', [c('s1', 'isNotEmpty')])] }),
      q('r2', 'short_text', { rules: [rule('hide', [c('s1', 'isEmpty')])] }),
    ]),
    step('d', [q('end', 'short_text')]),
  );
  const problems = validateForPublish(f);
  t.deepEqual(paths(problems), ['/steps/2/questions/0/rules/0/conditions/0/source_question_id', '/steps/2/questions/0/initially_hidden']);
  t.regex(problems[0].message, /never walked before this one/);
});

test('publish refuses initially hidden questions that nothing can show', (t) => {
  const f = form(
    step('a', [
      q('x', 'short_text'),
      q('h', 'short_text', { initially_hidden: true, rules: [rule('require', [c('x', 'isNotEmpty')]), rule('end_form', [c('x', 'equals', 'stop')])] }),
      q('ok', 'short_text', { initially_hidden: true, rules: [rule('show', [c('x', 'isNotEmpty')])] }),
    ]),
  );
  const problems = validateForPublish(f);
  t.deepEqual(paths(problems), ['/steps/0/questions/1/initially_hidden', '/steps/0/questions/1/rules/1']);
  t.regex(problems[0].message, /needs a show rule/);
});

test('publish refuses a required hidden question whose show rules can never fire', (t) => {
  const f = form(
    step('a', [
      q('n', 'number'),
      q('h', 'short_text', { initially_hidden: true, required: true, rules: [rule('show', [c('n', 'greaterThan', 10), c('n', 'lessThan', 1)])] }),
    ]),
  );
  t.deepEqual(paths(validateForPublish(f)), [
    '/steps/0/questions/1/rules/0/conditions/1',
    '/steps/0/questions/1/initially_hidden',
    '/steps/0/questions/1/required',
  ]);
});

test('publish also reports every write-time problem', (t) => {
  const f = form(step('a', [q('x', 'single_choice', { options: YES_NO }), q('y', 'short_text', { rules: [rule('hide', [c('x', 'equals', 'Maybe')])] })]));
  t.deepEqual(paths(validateForPublish(f)), ['/steps/0/questions/1/rules/0/conditions/0/value']);
});

test('a sound branching form publishes cleanly', (t) => {
  const f = form(
    step('contact', [q('email', 'email', { required: true })], { segment: 'before' }),
    step('a', [
      q('insured', 'single_choice', { options: YES_NO, required: true, rules: [skip('review', c('insured', 'equals', 'No'))] }),
      q('carrier', 'short_text', { initially_hidden: true, required: true, rules: [rule('show', [c('insured', 'equals', 'Yes')])] }),
    ]),
    step('details', [q('expires', 'date', { required: true })]),
    step('review', [q('ok', 'single_choice', { options: ['I agree'], required: true })], { segment: 'after' }),
  );
  t.deepEqual(validateForPublish(f), []);
});

test('publish refuses conditions that no accepted answer can meet (number and date settings)', (t) => {
  const src = [q('n', 'number', { settings: { min: 0, max: 10, integer: true } }), q('d', 'date', { settings: { min: '2020-01-01', max: '2030-12-31' } })];
  const cases: [ReturnType<typeof rule>, string | null][] = [
    [rule('hide', [c('n', 'greaterThan', 10)]), '/steps/1/questions/0/rules/0/conditions/0/value'],
    [rule('hide', [c('n', 'lessThan', 0)]), '/steps/1/questions/0/rules/0/conditions/0/value'],
    [rule('hide', [c('n', 'equals', 11)]), '/steps/1/questions/0/rules/0/conditions/0/value'],
    [rule('hide', [c('n', 'equals', 2.5)]), '/steps/1/questions/0/rules/0/conditions/0/value'],
    [rule('hide', [c('n', 'isNotEmpty'), c('d', 'after', '2030-12-31')]), '/steps/1/questions/0/rules/0/conditions/1/value'],
    [rule('hide', [c('d', 'before', '2019-06-01')]), '/steps/1/questions/0/rules/0/conditions/0/value'],
    [rule('hide', [c('n', 'greaterThan', 11), c('d', 'before', '2020-01-01')], { condition_mode: 'any' }), '/steps/1/questions/0/rules/0/conditions/0/value'],
    [rule('hide', [c('n', 'greaterThan', 11), c('n', 'equals', 3)], { condition_mode: 'any' }), null],
    [rule('hide', [c('n', 'greaterThan', 9), c('n', 'lessThan', 1), c('n', 'equals', 10)], { condition_mode: 'any' }), null],
    [rule('hide', [c('d', 'after', '2030-12-30')]), null],
    [rule('hide', [c('n', 'notEquals', 11)]), null],
  ];
  for (const [r, path] of cases) {
    const f = form(step('a', src), step('b', [q('t', 'short_text', { rules: [r] })]));
    t.deepEqual(paths(validateForPublish(f)), path ? [path] : [], JSON.stringify(r.conditions));
  }
});
