// The form rule engine, shared by the hosted form page (bundled for the browser) and the server.
// Plain TypeScript on purpose: no Node modules, no runtime dependencies (only type imports).
import type { Condition, FormStructure, Question, Rule, Step } from './schema.ts';

export type Answers = Readonly<Record<string, unknown>>;

/** Where the consumer goes after a step. */
export type NextStep =
  { kind: 'step'; index: number; step_id: string; reason: 'continue' | 'skip_to_step' } | { kind: 'end'; reason: 'end_form' | 'last_step' };

export interface QuestionState {
  step_index: number;
  /** The question's step is on the walked path. */
  on_path: boolean;
  /** Shown by its own visibility rules (ignores the path). */
  shown: boolean;
  /** on_path && shown: the consumer sees it. */
  visible: boolean;
  /** visible && (required || a fired `require` rule). */
  required: boolean;
}

export interface StepState {
  index: number;
  id: string;
  on_path: boolean;
  /** Only for steps on the path. */
  next: NextStep | null;
}

export interface Evaluation {
  /** Step indices the consumer walks, in order. */
  path: number[];
  path_step_ids: string[];
  visible: string[];
  required: string[];
  /** True when an `end_form` rule cut the walk short. */
  ended_by_rule: boolean;
  questions: Record<string, QuestionState>;
  steps: StepState[];
  /** The answers that count: only those of visible questions, others are dropped. */
  effective_answers: Record<string, unknown>;
}

// ---- value parsing ---------------------------------------------------------------------------------

/** Null, undefined, blank strings, NaN, and arrays/objects whose members are all empty. */
export function isEmptyValue(v: unknown): boolean {
  if (v === null || v === undefined) return true;
  if (typeof v === 'string') return v.trim() === '';
  if (typeof v === 'number') return Number.isNaN(v);
  if (Array.isArray(v)) return v.every(isEmptyValue);
  if (typeof v === 'object') return Object.values(v as object).every(isEmptyValue);
  return false;
}

const PLAIN_NUMBER = /^[+-]?(\d+(\.\d+)?|\.\d+)$/;
const GROUPED_NUMBER = /^[+-]?\d{1,3}(,\d{3})+(\.\d+)?$/;

/** A finite number from a number or a string like "1200", "-3.5", "1,200.50"; otherwise null. */
export function parseNumber(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v !== 'string') return null;
  const s = v.trim();
  if (!PLAIN_NUMBER.test(s) && !GROUPED_NUMBER.test(s)) return null;
  const n = Number(s.replace(/,/g, ''));
  return Number.isFinite(n) ? n : null;
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A real calendar date `YYYY-MM-DD` (surrounding spaces ignored), returned normalised; otherwise null. */
export function parseIsoDate(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const s = v.trim();
  const m = ISO_DATE.exec(s);
  if (!m) return null;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  if (y < 1 || mo < 1 || mo > 12 || d < 1) return null;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1];
  return d <= days ? s : null;
}

function textOf(v: unknown): string | null {
  if (typeof v === 'string') return v.trim().toLowerCase();
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return null;
}

function listOf(v: unknown): string[] {
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === 'string');
  if (typeof v === 'string' && v !== '') return [v];
  return [];
}

// ---- conditions ------------------------------------------------------------------------------------

type Kind = 'text' | 'number' | 'date' | 'choice' | 'multi' | 'other';

function kindOf(type: Question['type'] | undefined): Kind {
  switch (type) {
    case 'short_text':
    case 'long_text':
    case 'email':
      return 'text';
    case 'number':
      return 'number';
    case 'date':
      return 'date';
    case 'dropdown':
    case 'single_choice':
      return 'choice';
    case 'multi_choice':
      return 'multi';
    default:
      return 'other';
  }
}

function equalsFor(kind: Kind, answer: unknown, value: unknown): boolean {
  switch (kind) {
    case 'text': {
      const a = textOf(answer);
      const b = textOf(value);
      return a !== null && b !== null && a === b;
    }
    case 'number': {
      const a = parseNumber(answer);
      const b = parseNumber(value);
      return a !== null && b !== null && a === b;
    }
    case 'date': {
      const a = parseIsoDate(answer);
      const b = parseIsoDate(value);
      return a !== null && b !== null && a === b;
    }
    case 'choice':
      return typeof answer === 'string' && answer === value;
    default:
      return false;
  }
}

function compare(kind: Kind, answer: unknown, value: unknown): number | null {
  if (kind === 'number') {
    const a = parseNumber(answer);
    const b = parseNumber(value);
    return a === null || b === null ? null : a - b;
  }
  if (kind === 'date') {
    const a = parseIsoDate(answer);
    const b = parseIsoDate(value);
    return a === null || b === null ? null : a < b ? -1 : a > b ? 1 : 0;
  }
  return null;
}

function containsFor(kind: Kind, answer: unknown, value: unknown): boolean {
  if (kind === 'text') {
    const a = textOf(answer);
    const b = textOf(value);
    return a !== null && b !== null && b !== '' && a.includes(b);
  }
  if (kind === 'multi') return typeof value === 'string' && listOf(answer).includes(value);
  return false;
}

/**
 * Test one condition against an answer of a question of the given type.
 * Never throws: a malformed answer or value makes comparisons false; the negations
 * (notEquals, notContains) are exact complements, so an empty answer satisfies them.
 */
export function testCondition(type: Question['type'] | undefined, condition: Pick<Condition, 'operator' | 'value'>, answer: unknown): boolean {
  const kind = kindOf(type);
  const { operator, value } = condition;
  switch (operator) {
    case 'isEmpty':
      return isEmptyValue(answer);
    case 'isNotEmpty':
      return !isEmptyValue(answer);
    case 'equals':
      return equalsFor(kind, answer, value);
    case 'notEquals':
      return !equalsFor(kind, answer, value);
    case 'contains':
      return containsFor(kind, answer, value);
    case 'notContains':
      return !containsFor(kind, answer, value);
    case 'greaterThan':
    case 'after': {
      if (operator === 'after' && kind !== 'date') return false;
      const c = compare(kind, answer, value);
      return c !== null && c > 0;
    }
    case 'lessThan':
    case 'before': {
      if (operator === 'before' && kind !== 'date') return false;
      const c = compare(kind, answer, value);
      return c !== null && c < 0;
    }
    default:
      return false;
  }
}

const TEXT_OPS = ['equals', 'notEquals', 'contains', 'notContains', 'isEmpty', 'isNotEmpty'] as const;
const NUMBER_OPS = ['equals', 'notEquals', 'greaterThan', 'lessThan', 'isEmpty', 'isNotEmpty'] as const;
const DATE_OPS = ['equals', 'notEquals', 'before', 'after', 'greaterThan', 'lessThan', 'isEmpty', 'isNotEmpty'] as const;
const CHOICE_OPS = ['equals', 'notEquals', 'isEmpty', 'isNotEmpty'] as const;
const MULTI_OPS = ['contains', 'notContains', 'isEmpty', 'isNotEmpty'] as const;
const PRESENCE_OPS = ['isEmpty', 'isNotEmpty'] as const;

/** The operators a condition may use on a question of this type. */
export const OPERATORS_BY_TYPE: Readonly<Record<Question['type'], readonly Condition['operator'][]>> = {
  short_text: TEXT_OPS,
  long_text: TEXT_OPS,
  email: TEXT_OPS,
  number: NUMBER_OPS,
  date: DATE_OPS,
  dropdown: CHOICE_OPS,
  single_choice: CHOICE_OPS,
  multi_choice: MULTI_OPS,
  file_upload: PRESENCE_OPS,
  address: PRESENCE_OPS,
  data_table: PRESENCE_OPS,
};

// ---- evaluation ------------------------------------------------------------------------------------

/** Index of every question by id (first occurrence wins). */
export function indexQuestions(structure: FormStructure): Map<string, { question: Question; step: number; position: number }> {
  const index = new Map<string, { question: Question; step: number; position: number }>();
  structure.steps.forEach((step, s) =>
    step.questions.forEach((question, q) => {
      if (!index.has(question.id)) index.set(question.id, { question, step: s, position: q });
    }),
  );
  return index;
}

/** An own property only: ids such as "constructor" must not find Object.prototype members. */
function own<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

function ruleFires(rule: Rule, types: Map<string, Question['type']>, answers: Record<string, unknown>): boolean {
  const test = (c: Condition) => testCondition(types.get(c.source_question_id), c, own(answers, c.source_question_id));
  return rule.condition_mode === 'any' ? rule.conditions.some(test) : rule.conditions.every(test);
}

const FLOW_ACTIONS = new Set(['skip_to_step', 'end_form', 'continue']);

function stepExit(
  structure: FormStructure,
  stepIndex: number,
  shown: (q: Question) => boolean,
  types: Map<string, Question['type']>,
  effective: Record<string, unknown>,
): NextStep {
  const step = structure.steps[stepIndex];
  for (const question of step.questions) {
    if (!shown(question)) continue; // flow rules of hidden questions do not fire
    for (const rule of question.rules) {
      if (!FLOW_ACTIONS.has(rule.action) || !ruleFires(rule, types, effective)) continue;
      if (rule.action === 'end_form') return { kind: 'end', reason: 'end_form' };
      if (rule.action === 'skip_to_step') {
        const target = structure.steps.findIndex((s) => s.id === rule.target_step_id);
        // Unknown or backward targets (refused at publish) fall back to continuing, so the walk always ends.
        if (target > stepIndex) return { kind: 'step', index: target, step_id: structure.steps[target].id, reason: 'skip_to_step' };
      }
      return defaultNext(structure, stepIndex); // `continue`: the first firing flow rule decides
    }
  }
  return defaultNext(structure, stepIndex);
}

function defaultNext(structure: FormStructure, stepIndex: number): NextStep {
  const next = stepIndex + 1;
  return next < structure.steps.length
    ? { kind: 'step', index: next, step_id: structure.steps[next].id, reason: 'continue' }
    : { kind: 'end', reason: 'last_step' };
}

/** Evaluate every rule against the answers: what is visible and required, the path, and whether the form ends early. */
export function evaluate(structure: FormStructure, answers: Answers): Evaluation {
  const types = new Map<string, Question['type']>();
  for (const step of structure.steps) for (const q of step.questions) if (!types.has(q.id)) types.set(q.id, q.type);

  const effective: Record<string, unknown> = {};
  const questions: Record<string, QuestionState> = {};
  const order: string[] = [];
  const steps: StepState[] = [];
  const path: number[] = [];
  let expected: number | null = structure.steps.length > 0 ? 0 : null;
  let endedByRule = false;

  structure.steps.forEach((step: Step, s: number) => {
    const onPath = expected === s;
    const shownHere = new Map<Question, boolean>();
    for (const question of step.questions) {
      // Rules only see earlier answers; a hidden or off-path question counts as unanswered.
      let show = false;
      let hide = false;
      let require = false;
      for (const rule of question.rules) {
        if (rule.action !== 'show' && rule.action !== 'hide' && rule.action !== 'require') continue;
        if (!ruleFires(rule, types, effective)) continue;
        if (rule.action === 'show') show = true;
        else if (rule.action === 'hide') hide = true;
        else require = true;
      }
      // hide beats show; show only matters for initially hidden questions
      const shown = !hide && (!question.initially_hidden || show);
      shownHere.set(question, shown);
      const visible = onPath && shown;
      if (!Object.hasOwn(questions, question.id)) {
        order.push(question.id);
        questions[question.id] = { step_index: s, on_path: onPath, shown, visible, required: visible && (question.required || require) };
      }
      const answer = own(answers, question.id);
      if (visible && answer !== undefined && !Object.hasOwn(effective, question.id)) effective[question.id] = answer;
    }
    let next: NextStep | null = null;
    if (onPath) {
      path.push(s);
      next = stepExit(structure, s, (q) => shownHere.get(q) ?? false, types, effective);
      if (next.kind === 'step') expected = next.index;
      else {
        expected = null;
        endedByRule = next.reason === 'end_form';
      }
    }
    steps.push({ index: s, id: step.id, on_path: onPath, next });
  });

  const visible = order.filter((id) => questions[id].visible); // form order, whatever the ids look like
  return {
    path,
    path_step_ids: path.map((i) => structure.steps[i].id),
    visible,
    required: visible.filter((id) => questions[id].required),
    ended_by_rule: endedByRule,
    questions,
    steps,
    effective_answers: effective,
  };
}

/** Where the consumer goes after the step at `currentStepIndex`, given the answers so far. */
export function nextStep(structure: FormStructure, answers: Answers, currentStepIndex: number): NextStep {
  if (currentStepIndex < 0 || currentStepIndex >= structure.steps.length) return { kind: 'end', reason: 'last_step' };
  const evaluation = evaluate(structure, answers);
  const state = evaluation.steps[currentStepIndex];
  if (state.next) return state.next;
  // The step is off the current path (e.g. the consumer navigated there): judge it with the same answers.
  const types = new Map<string, Question['type']>();
  for (const step of structure.steps) for (const q of step.questions) if (!types.has(q.id)) types.set(q.id, q.type);
  const effective = { ...evaluation.effective_answers };
  for (const q of structure.steps[currentStepIndex].questions) {
    const answer = own(answers, q.id);
    if (own(evaluation.questions, q.id)?.shown && answer !== undefined) effective[q.id] = answer;
  }
  return stepExit(structure, currentStepIndex, (q) => own(evaluation.questions, q.id)?.shown ?? false, types, effective);
}

// ---- submission validation -------------------------------------------------------------------------

export type SubmissionErrorCode = 'required' | 'invalid_type' | 'option_not_allowed' | 'out_of_range' | 'too_many' | 'too_few';

export interface SubmissionError {
  question_id: string;
  /** JSON pointer into the answers object, e.g. `/answers/drivers/0/date_of_birth`. */
  path: string;
  code: SubmissionErrorCode;
  message: string;
}

export interface SubmissionCheck {
  ok: boolean;
  errors: SubmissionError[];
  /** Normalised answers of the visible questions (numbers parsed, text trimmed, empty answers left out). */
  answers: Record<string, unknown>;
  /** Answers that were ignored, and why. */
  dropped: { question_id: string; reason: 'hidden' | 'not_on_path' | 'unknown_question' }[];
  evaluation: Evaluation;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DEFAULT_TEXT_MAX = { short_text: 1000, long_text: 10_000 } as const;
const ADDRESS_KEYS = ['line1', 'line2', 'city', 'state', 'postal_code', 'county', 'country'] as const;
const ADDRESS_REQUIRED = ['line1', 'city', 'state', 'postal_code'] as const;
const MAX_FILE_BYTES = 10 * 1024 * 1024;

type Check = { value: unknown } | { error: { code: SubmissionErrorCode; message: string; sub?: string } };
const err = (code: SubmissionErrorCode, message: string, sub?: string): Check => ({ error: { code, message, sub } });

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

type ScalarType = 'short_text' | 'long_text' | 'email' | 'number' | 'date' | 'dropdown' | 'single_choice';
type ScalarSettings = { max_length?: number; min?: number | string; max?: number | string; integer?: boolean };

function checkScalar(type: ScalarType, raw: unknown, settings: ScalarSettings | undefined, options: readonly string[] | undefined): Check {
  switch (type) {
    case 'short_text':
    case 'long_text':
    case 'email': {
      if (typeof raw !== 'string') return err('invalid_type', 'must be a string');
      const s = raw.trim();
      const max = settings?.max_length ?? (type === 'email' ? 320 : DEFAULT_TEXT_MAX[type]);
      if (s.length > max) return err('out_of_range', `must be at most ${max} characters`);
      if (type === 'email' && !EMAIL.test(s)) return err('invalid_type', 'must be an email address');
      return { value: s };
    }
    case 'number': {
      const n = parseNumber(raw);
      if (n === null) return err('invalid_type', 'must be a number such as 1200 or "1,200.50"');
      if (settings?.integer && !Number.isInteger(n)) return err('invalid_type', 'must be a whole number');
      if (typeof settings?.min === 'number' && n < settings.min) return err('out_of_range', `must be at least ${settings.min}`);
      if (typeof settings?.max === 'number' && n > settings.max) return err('out_of_range', `must be at most ${settings.max}`);
      return { value: n };
    }
    case 'date': {
      const d = parseIsoDate(raw);
      if (d === null) return err('invalid_type', 'must be a date YYYY-MM-DD');
      if (typeof settings?.min === 'string' && d < settings.min) return err('out_of_range', `must be on or after ${settings.min}`);
      if (typeof settings?.max === 'string' && d > settings.max) return err('out_of_range', `must be on or before ${settings.max}`);
      return { value: d };
    }
    case 'dropdown':
    case 'single_choice': {
      if (typeof raw !== 'string') return err('invalid_type', 'must be one of the options (a string)');
      if (!(options ?? []).includes(raw)) return err('option_not_allowed', `"${raw}" is not one of the options`);
      return { value: raw };
    }
  }
}

function fileMatches(accept: readonly string[] | undefined, file: { filename: string; content_type: string }): boolean {
  if (!accept || accept.length === 0) return true;
  const name = file.filename.toLowerCase();
  const ct = file.content_type.toLowerCase();
  return accept.some((a) => (a.startsWith('.') ? name.endsWith(a) : a.endsWith('/*') ? ct.startsWith(a.slice(0, -1)) : ct === a));
}

function checkAnswer(question: Question, raw: unknown): Check {
  switch (question.type) {
    case 'short_text':
    case 'long_text':
    case 'email':
    case 'number':
    case 'date':
      return checkScalar(question.type, raw, question.settings, undefined);
    case 'dropdown':
    case 'single_choice':
      return checkScalar(question.type, raw, undefined, question.options);
    case 'multi_choice': {
      if (!Array.isArray(raw) || !raw.every((x) => typeof x === 'string')) return err('invalid_type', 'must be an array of options');
      const picked = [...new Set(raw as string[])];
      const bad = picked.find((x) => !question.options.includes(x));
      if (bad !== undefined) return err('option_not_allowed', `"${bad}" is not one of the options`);
      const s = question.settings;
      if (s?.min_selected !== undefined && picked.length < s.min_selected) return err('too_few', `choose at least ${s.min_selected}`);
      if (s?.max_selected !== undefined && picked.length > s.max_selected) return err('too_many', `choose at most ${s.max_selected}`);
      return { value: picked };
    }
    case 'file_upload': {
      if (!Array.isArray(raw)) return err('invalid_type', 'must be an array of files');
      const s = question.settings;
      const maxFiles = s?.max_files ?? 1;
      if (raw.length > maxFiles) return err('too_many', `at most ${maxFiles} file(s)`);
      for (const [i, f] of raw.entries()) {
        if (!isPlainObject(f) || typeof f.filename !== 'string' || f.filename === '' || typeof f.content_type !== 'string')
          return err('invalid_type', 'each file needs a filename and a content_type', `/${i}`);
        if (!fileMatches(s?.accept, { filename: f.filename, content_type: f.content_type }))
          return err('option_not_allowed', `file type not accepted (${(s?.accept ?? []).join(', ')})`, `/${i}`);
        if (typeof f.size === 'number' && f.size > (s?.max_file_bytes ?? MAX_FILE_BYTES)) return err('out_of_range', 'file too large', `/${i}/size`);
      }
      return { value: raw };
    }
    case 'address': {
      if (!isPlainObject(raw)) return err('invalid_type', 'must be an address object');
      const out: Record<string, string> = {};
      for (const [k, v] of Object.entries(raw)) {
        if (!(ADDRESS_KEYS as readonly string[]).includes(k)) return err('invalid_type', `unknown address part "${k}"`, `/${k}`);
        if (v === null || v === undefined) continue;
        if (typeof v !== 'string') return err('invalid_type', 'must be a string', `/${k}`);
        if (v.trim() !== '') out[k] = v.trim();
      }
      const missing = ADDRESS_REQUIRED.find((k) => !(k in out));
      if (missing) return err('required', `${missing} is required`, `/${missing}`);
      return { value: out };
    }
    case 'data_table': {
      if (!Array.isArray(raw)) return err('invalid_type', 'must be an array of rows');
      const { columns, min_rows, max_rows } = question.settings;
      const rows: Record<string, unknown>[] = [];
      for (const [i, row] of raw.entries()) {
        if (!isPlainObject(row)) return err('invalid_type', 'each row must be an object', `/${i}`);
        if (isEmptyValue(row)) continue; // blank rows are ignored
        const out: Record<string, unknown> = {};
        for (const key of Object.keys(row)) if (!columns.some((c) => c.id === key)) return err('invalid_type', `unknown column "${key}"`, `/${i}/${key}`);
        for (const col of columns) {
          const cell = row[col.id];
          if (isEmptyValue(cell)) {
            if (col.required) return err('required', `${col.label} is required`, `/${i}/${col.id}`);
            continue;
          }
          const checked = checkScalar(col.type, cell, undefined, col.options);
          if ('error' in checked) return err(checked.error.code, `${col.label}: ${checked.error.message}`, `/${i}/${col.id}`);
          out[col.id] = checked.value;
        }
        rows.push(out);
      }
      const max = max_rows ?? 100;
      if (rows.length > max) return err('too_many', `at most ${max} rows`);
      if (min_rows !== undefined && rows.length < min_rows) return err('too_few', `at least ${min_rows} row(s)`);
      return { value: rows };
    }
  }
}

/** Server-side check of a submission: required answers present, values of the right type, hidden answers dropped. */
export function validateSubmission(structure: FormStructure, answers: Answers): SubmissionCheck {
  const evaluation = evaluate(structure, answers);
  const byId = indexQuestions(structure);
  const errors: SubmissionError[] = [];
  const out: Record<string, unknown> = {};
  const dropped: SubmissionCheck['dropped'] = [];

  for (const [id, raw] of Object.entries(answers)) {
    if (raw === undefined) continue;
    const state = own(evaluation.questions, id);
    if (!state) dropped.push({ question_id: id, reason: 'unknown_question' });
    else if (!state.on_path) dropped.push({ question_id: id, reason: 'not_on_path' });
    else if (!state.visible) dropped.push({ question_id: id, reason: 'hidden' });
  }
  for (const id of evaluation.visible) {
    const { question } = byId.get(id)!;
    const raw = own(answers, id);
    const path = `/answers/${id}`;
    if (isEmptyValue(raw)) {
      if (evaluation.questions[id].required) errors.push({ question_id: id, path, code: 'required', message: `${question.label}: an answer is required` });
      continue;
    }
    const checked = checkAnswer(question, raw);
    if ('error' in checked) {
      errors.push({
        question_id: id,
        path: path + (checked.error.sub ?? ''),
        code: checked.error.code,
        message: `${question.label}: ${checked.error.message}`,
      });
      continue;
    }
    if (isEmptyValue(checked.value)) {
      if (evaluation.questions[id].required) errors.push({ question_id: id, path, code: 'required', message: `${question.label}: an answer is required` });
      continue;
    }
    out[id] = checked.value;
  }
  return { ok: errors.length === 0, errors, answers: out, dropped, evaluation };
}
