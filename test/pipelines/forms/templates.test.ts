import { readFileSync } from 'node:fs';
import test from 'ava';
import { z } from 'zod';
import { evaluate, validateSubmission } from '../../../pipelines/forms/engine.ts';
import {
  ACORD_FIELD_PATTERN,
  INSURANCE_LINES,
  TEMPLATE_IDS,
  formStructureInputSchema,
  formStructureSchema,
  type Question,
} from '../../../pipelines/forms/schema.ts';
import { template, templates } from '../../../pipelines/forms/templates.ts';
import { validateForPublish, validateStructure } from '../../../pipelines/forms/validate.ts';

const questions = (id: (typeof TEMPLATE_IDS)[number]): Question[] => template(id).structure.steps.flatMap((s) => s.questions);

test('there is one template per template_id', (t) => {
  t.deepEqual(
    templates().map((x) => x.id),
    [...TEMPLATE_IDS],
  );
});

for (const id of TEMPLATE_IDS) {
  test(`${id}: passes publish validation`, (t) => {
    t.deepEqual(validateForPublish(template(id).structure), []);
  });

  test(`${id}: round-trips through the schema (parse(x) deep-equals x)`, (t) => {
    const { structure } = template(id);
    t.deepEqual(formStructureSchema.parse(structure), structure);
    t.deepEqual(formStructureInputSchema.parse(structure), structure);
    const written = validateStructure(structure);
    t.true(written.ok);
    if (written.ok) t.deepEqual(written.structure, structure);
  });

  test(`${id}: every question and table column names the ACORD field it fills`, (t) => {
    for (const question of questions(id)) {
      t.regex(question.acord_field ?? '', ACORD_FIELD_PATTERN, question.id);
      if (question.type === 'data_table')
        for (const column of question.settings.columns) {
          t.regex(column.acord_field ?? '', ACORD_FIELD_PATTERN, `${question.id}.${column.id}`);
          t.true(column.acord_field!.startsWith(`${question.acord_field}.`), `${question.id}.${column.id} sits under its table's field`);
        }
    }
  });

  test(`${id}: no two questions fill the same ACORD field`, (t) => {
    const fields = questions(id).map((q) => q.acord_field);
    t.is(new Set(fields).size, fields.length);
  });

  test(`${id}: has contact details, a show rule, and a valid insurance line`, (t) => {
    const tpl = template(id);
    t.true(INSURANCE_LINES.includes(tpl.insurance_line));
    t.is(tpl.structure.steps[0].segment, 'before');
    t.true(questions(id).some((q) => q.type === 'email' && q.required));
    t.true(questions(id).some((q) => q.rules.some((r) => r.action === 'show')));
  });

  test(`${id}: with no answers, every step is on the path and only visible questions are required`, (t) => {
    const { structure } = template(id);
    const e = evaluate(structure, {});
    t.deepEqual(
      e.path,
      structure.steps.map((_, i) => i),
    );
    for (const qid of e.required) t.true(e.questions[qid].visible);
  });
}

test('every template uses at least one of the flow actions', (t) => {
  const actions = new Set(templates().flatMap((x) => x.structure.steps.flatMap((s) => s.questions.flatMap((q) => q.rules.map((r) => r.action)))));
  for (const action of ['show', 'require', 'skip_to_step', 'end_form'] as const) t.true(actions.has(action), action);
});

test('template() returns a fresh copy each time', (t) => {
  const a = template('auto');
  a.structure.steps[0].name = 'changed';
  t.not(template('auto').structure.steps[0].name, 'changed');
});

test('auto: drivers and vehicles are data tables with columns', (t) => {
  const byId = new Map(questions('auto').map((q) => [q.id, q]));
  for (const id of ['drivers', 'vehicles']) {
    const q = byId.get(id)!;
    t.is(q.type, 'data_table');
    if (q.type === 'data_table') t.true(q.settings.columns.length >= 5);
  }
});

test('auto: someone not insured today skips the current-policy step', (t) => {
  const { structure } = template('auto');
  const e = evaluate(structure, { currently_insured: 'No', prior_carrier: 'Acme' });
  t.false(e.path_step_ids.includes('current_policy'));
  t.deepEqual(e.path_step_ids.slice(-2), ['current_insurance', 'review']);
  t.false('prior_carrier' in e.effective_answers);
  t.true(evaluate(structure, { currently_insured: 'Yes' }).path_step_ids.includes('current_policy'));
});

test('home: a home rented to others ends the form; old homes must list updates', (t) => {
  const { structure } = template('home');
  const rented = evaluate(structure, { occupancy: 'Rented to others' });
  t.true(rented.ended_by_rule);
  t.deepEqual(rented.path_step_ids, ['contact', 'property']);
  t.true(evaluate(structure, { year_built: 1920 }).questions.system_updates.required);
  t.false(evaluate(structure, { year_built: '1,999' }).questions.system_updates.required);
  t.true(evaluate(structure, { pool: 'Yes' }).questions.pool_fenced.visible);
});

test('intake: claims end after contact, households skip the business step, lines reveal follow-ups', (t) => {
  const { structure } = template('intake');
  t.deepEqual(evaluate(structure, { request_type: 'Report a claim' }).path_step_ids, ['contact']);
  t.deepEqual(evaluate(structure, { customer_type: 'Me or my household' }).path_step_ids, ['contact', 'needs', 'prior_insurance', 'documents']);
  t.deepEqual(evaluate(structure, { customer_type: 'A business' }).path_step_ids, ['contact', 'needs', 'business', 'prior_insurance', 'documents']);
  const e = evaluate(structure, { lines: ['Auto', 'Other'] });
  t.true(e.questions.vehicle_count.visible);
  t.true(e.questions.other_needs.required);
  t.false(e.questions.home_ownership.visible);
});

test('habitational: condominium associations skip leasing; mixed use asks about commercial tenants', (t) => {
  const { structure } = template('habitational');
  t.false(evaluate(structure, { occupancy_type: 'Condominium association' }).path_step_ids.includes('leasing'));
  const mixed = evaluate(structure, { occupancy_type: 'Mixed use (residential and commercial)', year_built: 1975 });
  t.true(mixed.path_step_ids.includes('leasing'));
  t.true(mixed.questions.commercial_tenants.required);
  t.true(mixed.questions.system_updates.required);
});

test('a realistic auto submission validates', (t) => {
  const { structure } = template('auto');
  const r = validateSubmission(structure, {
    first_name: 'Ann',
    last_name: 'Lee',
    email: 'ann@example.com',
    phone: '512-555-0100',
    date_of_birth: '1985-04-12',
    mailing_address: { line1: '1 Main St', city: 'Austin', state: 'TX', postal_code: '78701' },
    effective_date: '2026-12-01',
    garaged_at_mailing: 'Yes',
    drivers: [{ first_name: 'Ann', last_name: 'Lee', date_of_birth: '1985-04-12', relationship: 'Self', license_number: 'D123', license_state: 'TX' }],
    incidents: 'No',
    vehicles: [{ year: 2020, make: 'Toyota', model: 'Camry', vin: '4T1B11HK5LU000000', use: 'Commute', annual_miles: '12,000', ownership: 'Financed' }],
    has_lienholder: 'Yes',
    lienholder_details: 'Toyota Financial, PO Box 1, Dallas TX',
    liability_limits: '100/300/100',
    physical_damage: 'Yes',
    deductible: '$500',
    currently_insured: 'No',
    attestation: 'I confirm the information I provided is true and complete',
  });
  t.deepEqual(r.errors, []);
  t.deepEqual(r.evaluation.path_step_ids, ['contact', 'policy', 'drivers', 'vehicles', 'coverage', 'current_insurance', 'review']);
});

test('the schemas render to JSON Schema for OpenAPI', (t) => {
  const schema = z.toJSONSchema(formStructureSchema, { io: 'input' }) as { $defs?: Record<string, unknown> };
  t.truthy(schema.$defs?.FormQuestion);
  t.truthy(schema.$defs?.FormRule);
  t.notThrows(() => z.toJSONSchema(formStructureInputSchema, { io: 'input' }));
});

test('the README lists every ACORD field the templates fill', (t) => {
  const readme = readFileSync(new URL('../../../pipelines/forms/README.md', import.meta.url), 'utf8');
  const sections = new Map<string, string>();
  for (const block of readme
    .split(/^\*\*(ACORD\d+)\*\*$/m)
    .slice(1)
    .reduce<string[][]>((acc, x, i) => (i % 2 ? acc[acc.length - 1].push(x) : acc.push([x]), acc), []))
    sections.set(block[0], block[1]);
  for (const tpl of templates())
    for (const question of tpl.structure.steps.flatMap((s) => s.questions)) {
      const fields = [question.acord_field!, ...(question.type === 'data_table' ? question.settings.columns.map((c) => c.acord_field!) : [])];
      for (const field of fields) {
        const [form, ...rest] = field.split('.');
        t.true(sections.get(form)?.includes('`' + rest.join('.') + '`') ?? false, field);
      }
    }
});

test('an unknown template id is refused, not looked up on Object.prototype', (t) => {
  for (const id of ['boat', 'constructor', 'toString']) t.throws(() => template(id as never), { instanceOf: RangeError });
});
