// Write-time and publish-time validation of a form structure. Every problem carries a JSON pointer
// into the request body (`{ steps: [...] }`), e.g. `/steps/1/questions/0/rules/0/conditions/0/operator`.
import type { z } from 'zod';
import { OPERATORS_BY_TYPE, parseIsoDate } from './engine.ts';
import { LIMITS, formStructureInputSchema, type Condition, type FormStructure, type FormStructureInput, type Question, type Rule } from './schema.ts';

export interface Problem {
  path: string;
  message: string;
}

export type StructureResult = { ok: true; structure: FormStructure } | { ok: false; problems: Problem[] };

const escapePointer = (seg: PropertyKey) => String(seg).replace(/~/g, '~0').replace(/\//g, '~1');
/** JSON pointer of a path like ['steps', 0, 'name']. */
export const pointer = (segments: readonly PropertyKey[]) => segments.map((s) => '/' + escapePointer(s)).join('');

/** Zod issues as problems, one per unknown key. */
export function zodProblems(issues: readonly z.core.$ZodIssue[], prefix: readonly PropertyKey[] = []): Problem[] {
  const out: Problem[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const why = key === 'options' ? 'options exist only on dropdown, single_choice and multi_choice questions' : 'unknown field';
        out.push({ path: pointer([...path, key]), message: why });
      }
    } else out.push({ path: pointer(path), message: issue.message });
  }
  return out;
}

const slug = (s: string) =>
  s
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 40)
    .replace(/_+$/g, '');

function uniqueId(base: string, taken: Set<string>): string {
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}_${n}`;
  taken.add(id);
  return id;
}

/**
 * Fill in what a PATCH body may omit: step ids (from the step name), question ids (from the label), positions.
 * Deterministic: the same body always gives the same ids; explicit ids are never changed.
 */
export function normalizeStructure(input: FormStructureInput): FormStructure {
  const stepIds = new Set(input.steps.flatMap((s) => (s.id ? [s.id] : [])));
  const questionIds = new Set(input.steps.flatMap((s) => s.questions.flatMap((q) => (q.id ? [q.id] : []))));
  return {
    steps: input.steps.map((step, index) => ({
      ...step,
      id: step.id ?? uniqueId(slug(step.name) || `step_${index + 1}`, stepIds),
      position: step.position ?? index,
      questions: step.questions.map((q) => ({ ...q, id: q.id ?? uniqueId(slug(q.label) || 'question', questionIds) }) as Question),
    })),
  };
}

/** Write-time validation of a PATCH body: shape, then the cross-field rules. Returns the normalised structure. */
export function validateStructure(body: unknown): StructureResult {
  const parsed = formStructureInputSchema.safeParse(body);
  if (!parsed.success) return { ok: false, problems: zodProblems(parsed.error.issues) };
  const structure = normalizeStructure(parsed.data);
  const problems = checkStructure(structure);
  return problems.length ? { ok: false, problems } : { ok: true, structure };
}

// ---- write-time checks -----------------------------------------------------------------------------

interface Located {
  question: Question;
  step: number;
  index: number;
}

function locate(structure: FormStructure): Map<string, Located> {
  const map = new Map<string, Located>();
  structure.steps.forEach((step, s) =>
    step.questions.forEach((question, index) => {
      if (!map.has(question.id)) map.set(question.id, { question, step: s, index });
    }),
  );
  return map;
}

const FLOW = new Set<Rule['action']>(['skip_to_step', 'end_form', 'continue']);
const SEGMENT_RANK = { before: 0, main: 1, after: 2 } as const;
const CHOICE = new Set<Question['type']>(['dropdown', 'single_choice', 'multi_choice']);

function questionPath(s: number, q: number, ...rest: PropertyKey[]) {
  return pointer(['steps', s, 'questions', q, ...rest]);
}

/** Checks a valid-shaped, normalised structure for problems zod cannot see. */
export function checkStructure(structure: FormStructure): Problem[] {
  const problems: Problem[] = [];
  const push = (path: string, message: string) => problems.push({ path, message });
  const located = locate(structure);

  const total = structure.steps.reduce((n, s) => n + s.questions.length, 0);
  if (total > LIMITS.questionsPerForm) push('/steps', `a form has at most ${LIMITS.questionsPerForm} questions (this one has ${total})`);

  const seenSteps = new Map<string, number>();
  const seenQuestions = new Map<string, string>();
  let maxRank = 0;
  structure.steps.forEach((step, s) => {
    const first = seenSteps.get(step.id);
    if (first !== undefined) push(pointer(['steps', s, 'id']), `duplicate step id "${step.id}" (also /steps/${first}/id)`);
    else seenSteps.set(step.id, s);
    if (step.position !== s) push(pointer(['steps', s, 'position']), `position must equal the step's index ${s}`);
    const rank = SEGMENT_RANK[step.segment];
    if (rank < maxRank) push(pointer(['steps', s, 'segment']), `a "${step.segment}" step cannot come after a later segment; order steps before → main → after`);
    maxRank = Math.max(maxRank, rank);

    step.questions.forEach((q, qi) => {
      const at = (...rest: PropertyKey[]) => questionPath(s, qi, ...rest);
      const firstQ = seenQuestions.get(q.id);
      if (firstQ !== undefined) push(at('id'), `duplicate question id "${q.id}" (also ${firstQ})`);
      else seenQuestions.set(q.id, at('id'));
      checkQuestionSettings(q, at, push);
      q.rules.forEach((rule, r) => checkRule(rule, { step: s, index: qi, question: q }, located, (...rest) => at('rules', r, ...rest), push));
    });
  });
  return problems;
}

type At = (...rest: PropertyKey[]) => string;
type Push = (path: string, message: string) => void;

function duplicates(values: readonly string[]): number[] {
  const seen = new Set<string>();
  const dups: number[] = [];
  values.forEach((v, i) => (seen.has(v) ? dups.push(i) : seen.add(v)));
  return dups;
}

function checkQuestionSettings(q: Question, at: At, push: Push) {
  if (CHOICE.has(q.type) && 'options' in q) for (const i of duplicates(q.options)) push(at('options', i), `duplicate option "${q.options[i]}"`);
  switch (q.type) {
    case 'number':
    case 'date': {
      const s = q.settings;
      if (s?.min !== undefined && s.max !== undefined && s.min > s.max) push(at('settings', 'min'), 'min must not be greater than max');
      break;
    }
    case 'short_text':
    case 'long_text':
      break;
    case 'multi_choice': {
      const s = q.settings;
      if (s?.min_selected !== undefined && s.max_selected !== undefined && s.min_selected > s.max_selected)
        push(at('settings', 'min_selected'), 'min_selected must not be greater than max_selected');
      if (s?.min_selected !== undefined && s.min_selected > q.options.length)
        push(at('settings', 'min_selected'), 'min_selected exceeds the number of options');
      break;
    }
    case 'data_table': {
      const s = q.settings;
      for (const i of duplicates(s.columns.map((c) => c.id))) push(at('settings', 'columns', i, 'id'), `duplicate column id "${s.columns[i].id}"`);
      s.columns.forEach((c, i) => {
        if (c.type === 'dropdown' && !c.options) push(at('settings', 'columns', i, 'options'), 'a dropdown column needs options');
        if (c.type !== 'dropdown' && c.options) push(at('settings', 'columns', i, 'options'), 'options exist only on dropdown columns');
        if (c.options) for (const k of duplicates(c.options)) push(at('settings', 'columns', i, 'options', k), `duplicate option "${c.options[k]}"`);
      });
      if (s.min_rows !== undefined && s.max_rows !== undefined && s.min_rows > s.max_rows)
        push(at('settings', 'min_rows'), 'min_rows must not be greater than max_rows');
      break;
    }
    default:
      break;
  }
}

function checkRule(rule: Rule, host: Located, located: Map<string, Located>, at: At, push: Push) {
  if (rule.action === 'skip_to_step' && rule.target_step_id === undefined) push(at('target_step_id'), 'skip_to_step needs target_step_id');
  if (rule.action !== 'skip_to_step' && rule.target_step_id !== undefined) push(at('target_step_id'), 'target_step_id is only for skip_to_step');
  const flow = FLOW.has(rule.action);
  rule.conditions.forEach((c, ci) => {
    const cat = (...rest: PropertyKey[]) => at('conditions', ci, ...rest);
    const source = located.get(c.source_question_id);
    if (!source) return push(cat('source_question_id'), `no question has id "${c.source_question_id}"`);
    const earlier = source.step < host.step || (source.step === host.step && (source.index < host.index || (flow && source.index === host.index)));
    if (!earlier) {
      const why = flow ? 'a flow rule may only test this question or earlier ones' : 'a rule may only test questions that come earlier in the flow';
      return push(cat('source_question_id'), `${why} ("${c.source_question_id}" comes later)`);
    }
    checkCondition(c, source.question, cat, push);
  });
}

function checkCondition(c: Condition, source: Question, at: At, push: Push) {
  const allowed = OPERATORS_BY_TYPE[source.type];
  if (!allowed.includes(c.operator)) return push(at('operator'), `${c.operator} does not apply to a ${source.type} question; use one of ${allowed.join(', ')}`);
  const v = c.value;
  if (c.operator === 'isEmpty' || c.operator === 'isNotEmpty') {
    if (v !== undefined && v !== null) push(at('value'), `${c.operator} takes no value`);
    return;
  }
  switch (source.type) {
    case 'number':
      if (typeof v !== 'number' || !Number.isFinite(v)) push(at('value'), 'must be a number');
      return;
    case 'date':
      if (typeof v !== 'string' || parseIsoDate(v) !== v) push(at('value'), 'must be a date YYYY-MM-DD');
      return;
    case 'dropdown':
    case 'single_choice':
    case 'multi_choice':
      if (typeof v !== 'string' || !source.options.includes(v)) push(at('value'), `must be one of the options of "${source.id}": ${source.options.join(', ')}`);
      return;
    default:
      if (typeof v !== 'string' || v.trim() === '') push(at('value'), 'must be a non-empty string');
  }
}

// ---- publish-time checks ---------------------------------------------------------------------------

type Exit = number | 'end';

interface RuleRef {
  rule: Rule;
  host: Located;
  r: number;
  at: At;
}

/** Operators that can hold on an empty answer. */
const HOLDS_WHEN_EMPTY = new Set<Condition['operator']>(['isEmpty', 'notEquals', 'notContains']);

/**
 * Everything write-time validation checks, plus what would break consumers of a live form:
 * no steps or questions, bad skip targets, unreachable steps, rules that can never fire,
 * required questions only on skipped branches, and hidden questions nothing can show.
 */
export function validateForPublish(structure: FormStructure): Problem[] {
  const problems = checkStructure(structure);
  const push = (path: string, message: string) => problems.push({ path, message });
  const steps = structure.steps;
  if (steps.length === 0) {
    push('/steps', 'a form needs at least one step to be published');
    return problems;
  }
  if (steps.every((s) => s.questions.length === 0)) push('/steps', 'a form needs at least one question to be published');
  steps.forEach((s, i) => s.questions.length === 0 && push(pointer(['steps', i, 'questions']), 'a published step needs at least one question'));

  const located = locate(structure);
  const stepIndex = new Map<string, number>();
  steps.forEach((s, i) => !stepIndex.has(s.id) && stepIndex.set(s.id, i));

  const hideRules = (q: Question) => q.rules.some((r) => r.action === 'hide');
  const alwaysShown = (q: Question) => !q.initially_hidden && !hideRules(q);
  const canShow = (q: Question) => !q.initially_hidden || q.rules.some((r) => r.action === 'show');

  // Hidden questions nothing can reveal.
  steps.forEach((step, s) =>
    step.questions.forEach((q, qi) => {
      if (q.initially_hidden && !q.rules.some((r) => r.action === 'show'))
        push(questionPath(s, qi, 'initially_hidden'), 'an initially hidden question needs a show rule, or it can never be seen');
    }),
  );

  const never = new Set<Rule>(); // rules reported as never firing
  const neverFires = (ref: RuleRef, path: string, message: string) => {
    if (never.has(ref.rule)) return;
    never.add(ref.rule);
    push(path, `rule can never fire: ${message}`);
  };

  // Rules whose own conditions contradict each other, or whose host question can never be seen.
  const allRules: RuleRef[] = [];
  steps.forEach((step, s) =>
    step.questions.forEach((q, qi) =>
      q.rules.forEach((rule, r) => {
        const ref: RuleRef = { rule, host: { question: q, step: s, index: qi }, r, at: (...rest) => questionPath(s, qi, 'rules', r, ...rest) };
        allRules.push(ref);
        if (!canShow(q) && FLOW.has(rule.action)) neverFires(ref, ref.at(), 'its question can never be shown, and flow rules of hidden questions do not fire');
        if (rule.condition_mode === 'all') {
          const clash = contradiction(rule.conditions, located);
          if (clash) neverFires(ref, ref.at('conditions', clash.index), clash.message);
        }
        const outside = rule.conditions.map((cond) => outsideSettings(cond, located.get(cond.source_question_id)?.question));
        const hopeless = rule.condition_mode === 'all' ? outside.findIndex((m) => m !== null) : outside.every((m) => m !== null) ? 0 : -1;
        if (hopeless >= 0) neverFires(ref, ref.at('conditions', hopeless, 'value'), outside[hopeless]!);
      }),
    ),
  );

  // Skip targets.
  for (const ref of allRules) {
    if (ref.rule.action !== 'skip_to_step' || ref.rule.target_step_id === undefined) continue;
    const target = stepIndex.get(ref.rule.target_step_id);
    if (target === undefined) push(ref.at('target_step_id'), `no step has id "${ref.rule.target_step_id}"`);
    else if (target <= ref.host.step) push(ref.at('target_step_id'), `skip_to_step must go forward; "${ref.rule.target_step_id}" is not after this step`);
  }

  // A required question of the same step that is always shown is answered when the step is left.
  const answeredAtExit = (sourceId: string, step: number) => {
    const src = located.get(sourceId);
    return !!src && src.step === step && src.question.required && alwaysShown(src.question);
  };
  const alwaysHolds = (c: Condition, step: number) => c.operator === 'isNotEmpty' && answeredAtExit(c.source_question_id, step);

  // Step graph: the exits each step can take, in rule order; a rule that always fires cuts the rest.
  const exits: Exit[][] = steps.map((step, s) => {
    const out: Exit[] = [];
    const covered = new Map<string, Set<string>>();
    for (const q of step.questions) {
      if (!canShow(q)) continue;
      for (const [r, rule] of q.rules.entries()) {
        if (!FLOW.has(rule.action) || never.has(rule)) continue;
        const exit: Exit = rule.action === 'end_form' ? 'end' : rule.action === 'continue' ? s + 1 : (stepIndex.get(rule.target_step_id ?? '') ?? s + 1);
        const target: Exit = typeof exit === 'number' && (exit <= s || exit >= steps.length) ? (exit >= steps.length ? 'end' : s + 1) : exit;
        out.push(target === steps.length ? 'end' : target);
        const always = alwaysShown(q) && (ruleAlwaysFires(rule, s, alwaysHolds) || coversAllOptions(rule, s, covered, located, answeredAtExit));
        if (always) {
          // Later flow rules of this step are dead.
          markLaterDead(step.questions, q, r, s, never, push);
          return out;
        }
      }
    }
    out.push(s + 1 < steps.length ? s + 1 : 'end');
    return out;
  });

  const reachable = new Set<number>([0]);
  for (let s = 0; s < steps.length; s++) if (reachable.has(s)) for (const e of exits[s]) if (e !== 'end') reachable.add(e);

  steps.forEach((step, s) => {
    if (reachable.has(s)) return;
    push(pointer(['steps', s]), `step "${step.id}" can never be reached: every path skips it or ends before it`);
    step.questions.forEach((q, qi) => {
      if (q.required || q.rules.some((r) => r.action === 'require'))
        push(questionPath(s, qi, 'required'), 'required question only appears on a step that every path skips');
    });
  });

  // Steps that can come before each step on some path (itself included).
  const reachesFrom = steps.map((_, from) => {
    const seen = new Set<number>([from]);
    for (let s = from; s < steps.length; s++) if (seen.has(s)) for (const e of exits[s]) if (e !== 'end') seen.add(e);
    return seen;
  });
  for (const ref of allRules) {
    if (never.has(ref.rule) || !reachable.has(ref.host.step)) continue; // unreachable steps are reported once, above
    const live = ref.rule.conditions.map((c) => {
      const src = located.get(c.source_question_id);
      if (!src) return true;
      // A source on a step that never precedes the rule's step is always unanswered there.
      return reachesFrom[src.step].has(ref.host.step) || HOLDS_WHEN_EMPTY.has(c.operator);
    });
    const dead = ref.rule.condition_mode === 'all' ? live.indexOf(false) : live.every((l) => !l) ? 0 : -1;
    if (dead >= 0)
      neverFires(
        ref,
        ref.at('conditions', dead, 'source_question_id'),
        `"${ref.rule.conditions[dead].source_question_id}" is on a step that is never walked before this one, so it is always unanswered here`,
      );
  }

  // Hidden questions whose show rules can all never fire.
  steps.forEach((step, s) =>
    step.questions.forEach((q, qi) => {
      const shows = q.rules.filter((r) => r.action === 'show');
      if (!q.initially_hidden || shows.length === 0 || !shows.every((r) => never.has(r))) return;
      push(questionPath(s, qi, 'initially_hidden'), 'initially hidden question can never be shown: none of its show rules can fire');
      if (q.required || q.rules.some((r) => r.action === 'require'))
        push(questionPath(s, qi, 'required'), 'required question can never be shown, so it can never be answered');
    }),
  );
  return problems;
}

function ruleAlwaysFires(rule: Rule, step: number, alwaysHolds: (c: Condition, step: number) => boolean): boolean {
  return rule.condition_mode === 'all' ? rule.conditions.every((c) => alwaysHolds(c, step)) : rule.conditions.some((c) => alwaysHolds(c, step));
}

/** Flow rules testing `equals` on one answered-at-exit choice question that, together, cover every option. */
function coversAllOptions(
  rule: Rule,
  step: number,
  covered: Map<string, Set<string>>,
  located: Map<string, Located>,
  answeredAtExit: (id: string, step: number) => boolean,
): boolean {
  const sources = new Set(rule.conditions.map((c) => c.source_question_id));
  if (sources.size !== 1 || !rule.conditions.every((c) => c.operator === 'equals')) return false;
  if (rule.condition_mode === 'all' && rule.conditions.length !== 1) return false;
  const [id] = sources;
  const src = located.get(id);
  if (!src || (src.question.type !== 'dropdown' && src.question.type !== 'single_choice') || !answeredAtExit(id, step)) return false;
  const set = covered.get(id) ?? new Set<string>();
  for (const c of rule.conditions) if (typeof c.value === 'string') set.add(c.value);
  covered.set(id, set);
  return src.question.options.every((o) => set.has(o));
}

function markLaterDead(questions: readonly Question[], host: Question, r: number, s: number, never: Set<Rule>, push: Push) {
  const from = questions.indexOf(host);
  questions.forEach((q, qi) => {
    if (qi < from) return;
    q.rules.forEach((rule, ri) => {
      if (!FLOW.has(rule.action) || (qi === from && ri <= r) || never.has(rule)) return;
      never.add(rule);
      push(questionPath(s, qi, 'rules', ri), 'rule can never fire: an earlier flow rule of this step always fires first');
    });
  });
}

/** Two conditions of an `all` rule that cannot hold together; reports the later one. */
function contradiction(conditions: readonly Condition[], located: Map<string, Located>): { index: number; message: string } | null {
  type Bounds = { lo?: { v: number | string; i: number }; hi?: { v: number | string; i: number } };
  const bySource = new Map<string, { c: Condition; i: number }[]>();
  conditions.forEach((c, i) => bySource.set(c.source_question_id, [...(bySource.get(c.source_question_id) ?? []), { c, i }]));
  for (const [id, list] of bySource) {
    const type = located.get(id)?.question.type;
    const norm = (v: unknown) => (typeof v === 'string' && (type === 'short_text' || type === 'long_text' || type === 'email') ? v.trim().toLowerCase() : v);
    const empty = list.find((x) => x.c.operator === 'isEmpty');
    const needsAnswer = list.find((x) => !HOLDS_WHEN_EMPTY.has(x.c.operator));
    if (empty && needsAnswer) return { index: Math.max(empty.i, needsAnswer.i), message: `"${id}" cannot be empty and answered at once` };
    const bounds: Bounds = {};
    let eq: { v: unknown; i: number } | undefined;
    for (const { c, i } of list) {
      const v = norm(c.value);
      if (c.operator === 'equals') {
        if (eq && eq.v !== v) return { index: i, message: `"${id}" cannot equal both ${JSON.stringify(eq.v)} and ${JSON.stringify(v)}` };
        eq = { v, i };
      }
      if ((c.operator === 'greaterThan' || c.operator === 'after') && (typeof v === 'number' || typeof v === 'string'))
        if (!bounds.lo || v > bounds.lo.v) bounds.lo = { v, i };
      if ((c.operator === 'lessThan' || c.operator === 'before') && (typeof v === 'number' || typeof v === 'string'))
        if (!bounds.hi || v < bounds.hi.v) bounds.hi = { v, i };
    }
    for (const { c, i } of list) {
      const v = norm(c.value);
      if (c.operator === 'notEquals' && eq && eq.v === v)
        return { index: Math.max(i, eq.i), message: `"${id}" cannot equal and not equal ${JSON.stringify(v)}` };
      if (c.operator === 'notContains' && list.some((x) => x.c.operator === 'contains' && norm(x.c.value) === v))
        return { index: i, message: `"${id}" cannot contain and not contain ${JSON.stringify(v)}` };
    }
    if (bounds.lo && bounds.hi && bounds.lo.v >= bounds.hi.v)
      return { index: Math.max(bounds.lo.i, bounds.hi.i), message: `no value of "${id}" is above ${bounds.lo.v} and below ${bounds.hi.v}` };
    if (eq && (typeof eq.v === 'number' || typeof eq.v === 'string')) {
      const v = eq.v;
      if (bounds.lo && !(v > bounds.lo.v)) return { index: Math.max(eq.i, bounds.lo.i), message: `"${id}" cannot equal ${v} and be above ${bounds.lo.v}` };
      if (bounds.hi && !(v < bounds.hi.v)) return { index: Math.max(eq.i, bounds.hi.i), message: `"${id}" cannot equal ${v} and be below ${bounds.hi.v}` };
    }
  }
  return null;
}

/** Why a condition cannot hold for any answer the source question accepts (its min/max/integer settings), or null. */
function outsideSettings(c: Condition, source: Question | undefined): string | null {
  if (!source || (source.type !== 'number' && source.type !== 'date') || !source.settings) return null;
  const { min, max } = source.settings;
  const v = c.value;
  if (typeof v !== (source.type === 'number' ? 'number' : 'string')) return null;
  const value = v as number | string;
  const above = c.operator === 'greaterThan' || c.operator === 'after';
  const below = c.operator === 'lessThan' || c.operator === 'before';
  if (above && max !== undefined && value >= max) return `"${source.id}" accepts at most ${max}, so it is never above ${value}`;
  if (below && min !== undefined && value <= min) return `"${source.id}" accepts at least ${min}, so it is never below ${value}`;
  if (c.operator === 'equals') {
    if ((min !== undefined && value < min) || (max !== undefined && value > max)) return `"${source.id}" never accepts ${value} (outside its min/max)`;
    if (source.type === 'number' && source.settings.integer && !Number.isInteger(value)) return `"${source.id}" accepts whole numbers only`;
  }
  return null;
}
