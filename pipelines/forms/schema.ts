// Zod schemas of a form's structure (SPEC §2.2–2.4 plus the choices documented in README.md).
// The same schema validates PATCH bodies and describes GET responses, so what GET returns PATCH accepts.
import { z } from 'zod';

export const LIMITS = {
  steps: 50,
  questionsPerStep: 100,
  questionsPerForm: 500,
  rulesPerQuestion: 20,
  conditionsPerRule: 20,
  options: 200,
  optionLength: 200,
  labelLength: 500,
  nameLength: 200,
  helpTextLength: 2000,
  columns: 30,
  tableRows: 100,
  files: 20,
  idLength: 64,
  textValueLength: 500,
} as const;

export const INSURANCE_LINES = [
  'personal_auto',
  'homeowners',
  'renters',
  'condo',
  'dwelling_fire',
  'umbrella',
  'flood',
  'motorcycle',
  'boat',
  'commercial_auto',
  'general_liability',
  'businessowners',
  'commercial_property',
  'workers_comp',
  'habitational',
  'professional_liability',
  'cyber',
  'multi_line',
  'other',
] as const;
export const insuranceLineSchema = z.enum(INSURANCE_LINES).meta({
  description: 'Line of insurance of the form. `multi_line` is for intake forms that route between lines.',
});
export type InsuranceLine = z.infer<typeof insuranceLineSchema>;

export const STEP_TYPES = [
  'custom',
  'contact',
  'applicant',
  'drivers',
  'vehicles',
  'coverage',
  'property',
  'construction',
  'protection',
  'prior_insurance',
  'loss_history',
  'business',
  'building',
  'occupancy',
  'consent',
] as const;
export const stepTypeSchema = z.enum(STEP_TYPES).meta({
  description: '`custom` for a user-defined step; the other kinds mark the template step they came from (informational).',
});

export const SEGMENTS = ['before', 'main', 'after'] as const;
export const segmentSchema = z.enum(SEGMENTS).meta({
  description:
    'Where the step sits: `before` the main flow (e.g. contact capture), `main`, or `after` it (e.g. consent). Steps must be ordered before → main → after.',
});

export const QUESTION_TYPES = [
  'short_text',
  'long_text',
  'email',
  'number',
  'date',
  'dropdown',
  'single_choice',
  'multi_choice',
  'file_upload',
  'address',
  'data_table',
] as const;
export type QuestionType = (typeof QUESTION_TYPES)[number];

export const OPERATORS = ['equals', 'notEquals', 'contains', 'notContains', 'isEmpty', 'isNotEmpty', 'greaterThan', 'lessThan', 'before', 'after'] as const;
export type Operator = (typeof OPERATORS)[number];

export const ACTIONS = ['show', 'hide', 'require', 'skip_to_step', 'end_form', 'continue'] as const;

const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
export const idSchema = z
  .string()
  .min(1)
  .max(LIMITS.idLength)
  .regex(ID_PATTERN, 'must start with a letter or digit and use only letters, digits, "_", "." and "-"');

/** `ACORD<form number>.<Section>.<Field>` e.g. `ACORD125.NamedInsured.FullName`. */
export const ACORD_FIELD_PATTERN = /^ACORD\d{2,3}(\.[A-Z][A-Za-z0-9]*)+$/;
export const acordFieldSchema = z
  .string()
  .max(120)
  .regex(ACORD_FIELD_PATTERN, 'must look like ACORD125.NamedInsured.FullName')
  .meta({ description: 'The ACORD form field this answer fills, `ACORD<number>.<Section>.<Field>`.' });

export const isoDateSchema = z.iso.date().meta({ description: 'Calendar date YYYY-MM-DD.' });

const label = z.string().trim().min(1).max(LIMITS.labelLength);
const helpText = z.string().max(LIMITS.helpTextLength);

export const conditionSchema = z
  .strictObject({
    source_question_id: idSchema.meta({ description: 'Id of an earlier question whose answer is tested.' }),
    operator: z.enum(OPERATORS),
    value: z
      .union([z.string().max(LIMITS.textValueLength), z.number(), z.null()])
      .optional()
      .meta({
        description:
          'Compared value: a string for text and choice questions (one of the options for choices), a number for numbers, YYYY-MM-DD for dates; omitted or null for isEmpty/isNotEmpty.',
      }),
  })
  .meta({ id: 'FormCondition', description: 'One test on an earlier answer.' });
export type Condition = z.infer<typeof conditionSchema>;

export const ruleSchema = z
  .strictObject({
    condition_mode: z.enum(['all', 'any']).meta({ description: '`all` (AND) or `any` (OR) across the conditions.' }),
    conditions: z.array(conditionSchema).min(1).max(LIMITS.conditionsPerRule),
    action: z.enum(ACTIONS).meta({
      description:
        '`show`/`hide`/`require` act on the question carrying the rule; `skip_to_step`/`end_form`/`continue` decide where the consumer goes when leaving its step.',
    }),
    target_step_id: idSchema.optional().meta({ description: 'Id of the step to go to; only (and always) with `skip_to_step`.' }),
  })
  .meta({ id: 'FormRule', description: 'Conditional logic attached to a question.' });
export type Rule = z.infer<typeof ruleSchema>;

// ---- per-type settings -------------------------------------------------------------------------

export const textSettingsSchema = z
  .strictObject({
    max_length: z.int().min(1).max(10_000).optional(),
    placeholder: z.string().max(200).optional(),
  })
  .meta({ description: 'Settings of short_text and long_text (max_length defaults to 1000 / 10000).' });
export const numberSettingsSchema = z
  .strictObject({
    min: z.number().optional(),
    max: z.number().optional(),
    integer: z.boolean().optional().meta({ description: 'Only whole numbers are accepted.' }),
    unit: z.string().max(20).optional().meta({ description: 'Display unit, e.g. USD, sq ft, miles.' }),
  })
  .meta({ description: 'Settings of number questions.' });
export const dateSettingsSchema = z
  .strictObject({ min: isoDateSchema.optional(), max: isoDateSchema.optional() })
  .meta({ description: 'Settings of date questions (inclusive bounds).' });
export const multiChoiceSettingsSchema = z
  .strictObject({
    min_selected: z.int().min(0).max(LIMITS.options).optional(),
    max_selected: z.int().min(1).max(LIMITS.options).optional(),
  })
  .meta({ description: 'Settings of multi_choice questions.' });
export const fileUploadSettingsSchema = z
  .strictObject({
    accept: z
      .array(z.string().regex(/^(\.[a-z0-9]{1,10}|[a-z]+\/([a-z0-9.+-]+|\*))$/, 'a lowercase extension like ".pdf" or a MIME type like "image/*"'))
      .max(30)
      .optional()
      .meta({ description: 'Accepted extensions (".pdf") or MIME types ("image/*"); any file when omitted.' }),
    max_files: z.int().min(1).max(LIMITS.files).optional().meta({ description: 'Default 1.' }),
    max_file_bytes: z
      .int()
      .min(1)
      .max(10 * 1024 * 1024)
      .optional()
      .meta({ description: 'Default and ceiling 10 MB.' }),
  })
  .meta({ description: 'Settings of file_upload questions.' });
export const addressSettingsSchema = z
  .strictObject({
    include_line2: z.boolean().optional(),
    include_county: z.boolean().optional(),
    country: z
      .string()
      .regex(/^[A-Z]{2}$/)
      .optional()
      .meta({ description: 'ISO 3166-1 alpha-2; default US.' }),
  })
  .meta({ description: 'Settings of address questions. Answers are objects with line1, line2, city, state, postal_code, county, country.' });
export const COLUMN_TYPES = ['short_text', 'email', 'number', 'date', 'dropdown'] as const;
export const tableColumnSchema = z
  .strictObject({
    id: idSchema,
    label,
    type: z.enum(COLUMN_TYPES),
    required: z.boolean().optional(),
    options: z.array(z.string().trim().min(1).max(LIMITS.optionLength)).min(1).max(LIMITS.options).optional().meta({
      description: 'Choices of a `dropdown` column (required there, refused elsewhere).',
    }),
    acord_field: acordFieldSchema.optional(),
  })
  .meta({ id: 'FormTableColumn' });
export type TableColumn = z.infer<typeof tableColumnSchema>;
export const dataTableSettingsSchema = z
  .strictObject({
    columns: z.array(tableColumnSchema).min(1).max(LIMITS.columns),
    min_rows: z.int().min(0).max(LIMITS.tableRows).optional(),
    max_rows: z.int().min(1).max(LIMITS.tableRows).optional(),
  })
  .meta({ description: 'Settings of data_table questions. Answers are arrays of rows keyed by column id.' });

// ---- questions -----------------------------------------------------------------------------------

function questionShape<I extends z.ZodType>(id: I) {
  return {
    id,
    label: label.meta({ description: 'Text shown to the consumer.' }),
    help_text: helpText.optional().meta({ description: 'Extra guidance shown under the label.' }),
    required: z.boolean().default(false).meta({ description: 'An answer is required while the question is visible.' }),
    initially_hidden: z.boolean().default(false).meta({ description: 'Hidden until a `show` rule fires.' }),
    rules: z.array(ruleSchema).max(LIMITS.rulesPerQuestion).default([]).meta({ description: 'Conditional logic attached to the question.' }),
    acord_field: acordFieldSchema.optional(),
  };
}
const optionsSchema = z
  .array(z.string().trim().min(1).max(LIMITS.optionLength))
  .min(1)
  .max(LIMITS.options)
  .meta({ description: 'The choices, unique, in display order.' });

function questionSchemaOf<I extends z.ZodType>(id: I) {
  const base = questionShape(id);
  const variant = <T extends QuestionType, S extends z.ZodType>(type: T, settings: S) =>
    z.strictObject({ ...base, type: z.literal(type), settings: settings.optional() });
  return z
    .discriminatedUnion('type', [
      variant('short_text', textSettingsSchema),
      variant('long_text', textSettingsSchema),
      variant('email', z.strictObject({})),
      variant('number', numberSettingsSchema),
      variant('date', dateSettingsSchema),
      z.strictObject({ ...base, type: z.literal('dropdown'), options: optionsSchema }),
      z.strictObject({ ...base, type: z.literal('single_choice'), options: optionsSchema }),
      z.strictObject({ ...base, type: z.literal('multi_choice'), options: optionsSchema, settings: multiChoiceSettingsSchema.optional() }),
      variant('file_upload', fileUploadSettingsSchema),
      variant('address', addressSettingsSchema),
      z.strictObject({ ...base, type: z.literal('data_table'), settings: dataTableSettingsSchema }),
    ])
    .meta({ description: 'A typed question. `options` exist only on choice types; `settings` depend on `type`.' });
}

function stepSchemaOf<I extends z.ZodType, Q extends z.ZodType, P extends z.ZodType>(id: I, question: Q, position: P) {
  return z.strictObject({
    id,
    type: stepTypeSchema.default('custom'),
    name: z.string().trim().min(1).max(LIMITS.nameLength).meta({ description: 'Step name shown to the consumer.' }),
    description: helpText.optional().meta({ description: 'Text shown at the top of the step.' }),
    segment: segmentSchema.default('main'),
    position,
    questions: z.array(question).max(LIMITS.questionsPerStep).meta({ description: 'Ordered questions of the step.' }),
  });
}

/** A stored question (ids present). */
const stepIdDoc = { description: 'Stable step id, target of `skip_to_step`. Generated from the name when absent.' };
const questionIdDoc = { description: 'Id that rules refer to through `source_question_id`. Generated from the label when absent.' };
const positionDoc = { description: '0-based order of the step; equals its index in `steps` (filled in when absent).' };

export const questionSchema = questionSchemaOf(idSchema.meta(questionIdDoc)).meta({ id: 'FormQuestion' });
/** A stored step (id and position present). */
export const stepSchema = stepSchemaOf(idSchema.meta(stepIdDoc), questionSchema, z.int().min(0).meta(positionDoc)).meta({ id: 'FormStep' });
/** The structure as stored and returned by GET; also accepted by PATCH. */
export const formStructureSchema = z
  .strictObject({ steps: z.array(stepSchema).max(LIMITS.steps) })
  .meta({ id: 'FormStructure', description: 'Ordered steps of typed questions with rules.' });

/** The PATCH body: like the stored structure but step/question ids and positions may be omitted. */
export const questionInputSchema = questionSchemaOf(idSchema.optional().meta(questionIdDoc)).meta({ id: 'FormQuestionInput' });
export const stepInputSchema = stepSchemaOf(idSchema.optional().meta(stepIdDoc), questionInputSchema, z.int().min(0).optional().meta(positionDoc)).meta({
  id: 'FormStepInput',
});
export const formStructureInputSchema = z
  .strictObject({ steps: z.array(stepInputSchema).max(LIMITS.steps) })
  .meta({ id: 'FormStructureInput', description: 'PATCH body: replaces the whole structure. Missing ids are generated.' });

export type Question = z.output<typeof questionSchema>;
export type Step = z.output<typeof stepSchema>;
export type FormStructure = z.output<typeof formStructureSchema>;
export type FormStructureInput = z.output<typeof formStructureInputSchema>;

export const TEMPLATE_IDS = ['auto', 'home', 'intake', 'habitational'] as const;
export const templateIdSchema = z.enum(TEMPLATE_IDS).meta({ description: 'Pre-built structure to start a form from.' });
export type TemplateId = z.infer<typeof templateIdSchema>;
