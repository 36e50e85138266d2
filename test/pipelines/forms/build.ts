// Small builders for hand-written structures in the forms tests.
import type { Condition, FormStructure, Question, Rule, Step } from '../../../pipelines/forms/schema.ts';

type QuestionExtra = Partial<Omit<Question, 'id' | 'type' | 'label'>> & { options?: string[]; settings?: unknown };

export const q = (id: string, type: Question['type'], extra: QuestionExtra = {}): Question =>
  ({ id, type, label: `Label ${id}`, required: false, initially_hidden: false, rules: [], ...extra }) as Question;

export const c = (source_question_id: string, operator: Condition['operator'], value?: string | number | null): Condition =>
  value === undefined ? { source_question_id, operator } : { source_question_id, operator, value };

export const rule = (action: Rule['action'], conditions: Condition[], extra: Partial<Rule> = {}): Rule => ({
  condition_mode: 'all',
  conditions,
  action,
  ...extra,
});

export const skip = (target_step_id: string, ...conditions: Condition[]): Rule => rule('skip_to_step', conditions, { target_step_id });

export const step = (id: string, questions: Question[], extra: Partial<Step> = {}): Omit<Step, 'position'> => ({
  id,
  type: 'custom',
  name: `Step ${id}`,
  segment: 'main',
  questions,
  ...extra,
});

export const form = (...steps: Omit<Step, 'position'>[]): FormStructure => ({
  steps: steps.map((s, position) => ({ ...s, position }) as Step),
});

export const YES_NO = ['Yes', 'No'];
