// The LLM extractor: any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp) through the openai SDK,
// asking for structured output. Every answer value becomes a candidate with a page and a quote, and goes
// through the same grounding as the rules, so a value the model cites on the wrong page is not kept.
import OpenAI from 'openai';
import { zodResponseFormat } from 'openai/helpers/zod';
import { z } from 'zod';
import type { PageText } from '../documents/layout.ts';
import type { Candidate } from './candidates.ts';
import { documentKinds, type DocumentKind } from './schema.ts';
import { parseMoney, parseDate, cleanValue } from './normalise.ts';
import { answerSchemaFor, systemPrompt, userPrompt, version as promptVersion } from '../../prompts/extraction.v1.ts';

const answerSchema = answerSchemaFor(documentKinds);

export const llmOptionsSchema = z
  .object({
    baseURL: z.url(),
    model: z.string().min(1),
    apiKey: z.string().min(1).optional(),
    timeoutMs: z.number().int().positive().default(120_000),
    maxRetries: z.number().int().min(0).max(5).default(1),
    /** Upper bound on the document text sent, in characters. */
    maxPromptChars: z.number().int().positive().default(60_000),
  })
  .strict();
export type LlmOptions = z.input<typeof llmOptionsSchema>;

export interface LlmResult {
  candidates: Candidate[];
  kind?: DocumentKind;
  /** The model's raw answer text, kept for `_raw`. */
  raw?: string;
  error?: string;
  rejected: { pointer: string; reason: string }[];
  prompt_version: string;
  model: string;
}

const POINTERS: RegExp[] = [
  /^\/policy\/(provider|policy_number|effective_date|expiration_date|premium)$/,
  /^\/policyholder\/(first_name|last_name|organization|address)$/,
  /^\/coverages\/\d{1,3}\/(name|limit|deductible|premium)$/,
  /^\/vehicles\/\d{1,3}\/(year|make|model|vin)$/,
  /^\/drivers\/\d{1,3}\/(name|first_name|last_name)$/,
  /^\/property\/(address|dwelling|other_structures|personal_property|loss_of_use|personal_liability|medical_payments|deductible)$/,
  /^\/interested_parties\/\d{1,3}\/(name|role|address)$/,
  /^\/certificate\/(producer|insured|certificate_holder)$/,
  /^\/certificate\/insurers\/\d{1,2}\/(letter|name|naic)$/,
  /^\/certificate\/coverages\/\d{1,2}\/(type|insurer_letter|policy_number|effective_date|expiration_date|each_occurrence|general_aggregate|combined_single_limit|umbrella_each_occurrence|wc_statutory|el_each_accident|additional_insured|subrogation_waived)$/,
];
const MONEY =
  /\/(premium|limit|deductible|dwelling|other_structures|personal_property|loss_of_use|personal_liability|medical_payments|each_occurrence|general_aggregate|combined_single_limit|umbrella_each_occurrence|el_each_accident)$/;
const DATE = /_date$/;
const BOOL = /\/(wc_statutory|additional_insured|subrogation_waived)$/;

/** Coerce a model's value to the type the pointer needs; undefined when it cannot be. */
function coerce(pointer: string, v: string | number | boolean | null): string | number | boolean | null | undefined {
  if (v === null) return null;
  if (BOOL.test(pointer)) return typeof v === 'boolean' ? v : /^(y|yes|x|true)$/i.test(String(v));
  if (DATE.test(pointer)) return parseDate(String(v));
  if (/\/limit$|\/deductible$/.test(pointer) && typeof v === 'string' && v.includes('/')) {
    const parts = v.split('/').map((p) => parseMoney(p));
    return parts.every((p) => p !== undefined) ? parts.join('/') : undefined;
  }
  if (MONEY.test(pointer)) return parseMoney(typeof v === 'number' ? v : String(v));
  if (/\/year$/.test(pointer)) {
    const n = Number(v);
    return Number.isInteger(n) && n > 1900 && n < 2100 ? n : undefined;
  }
  const s = cleanValue(String(v));
  return s === '' ? null : s;
}

/** Ask the model; never throws for a bad answer (the error is returned and the rules still stand). */
export async function extractByLlm(pages: PageText[], hint: string | undefined, options: LlmOptions, signal?: AbortSignal): Promise<LlmResult> {
  const o = llmOptionsSchema.parse(options);
  const result: LlmResult = { candidates: [], rejected: [], prompt_version: promptVersion, model: o.model };
  const client = new OpenAI({ baseURL: o.baseURL, apiKey: o.apiKey ?? 'not-needed', timeout: o.timeoutMs, maxRetries: o.maxRetries });
  let content: string | null | undefined;
  try {
    const completion = await client.chat.completions.create(
      {
        model: o.model,
        temperature: 0,
        messages: [
          { role: 'system', content: systemPrompt },
          // Blocks in reading order keep columns apart, which models read better than page-wide rows.
          {
            role: 'user',
            content: userPrompt(
              pages.map((p) => ({ page: p.page, text: p.blocks.map((b) => b.text).join('\n\n') })),
              hint,
              o.maxPromptChars,
            ),
          },
        ],
        response_format: zodResponseFormat(answerSchema, 'extraction'),
      },
      { signal },
    );
    content = completion.choices[0]?.message?.content;
  } catch (e) {
    result.error = `LLM request failed: ${(e as Error).message}`;
    return result;
  }
  result.raw = content ?? undefined;
  let json: unknown;
  try {
    json = JSON.parse(content ?? '');
  } catch {
    result.error = 'LLM answer is not valid JSON';
    return result;
  }
  const parsed = answerSchema.safeParse(json);
  if (!parsed.success) {
    result.error = `LLM answer does not match the schema: ${parsed.error.issues
      .slice(0, 3)
      .map((i) => `${i.path.join('.')}: ${i.message}`)
      .join('; ')}`;
    return result;
  }
  const kind = parsed.data.document_kind as DocumentKind;
  if ((documentKinds as readonly string[]).includes(kind)) result.kind = kind;
  for (const v of parsed.data.values) {
    if (!POINTERS.some((re) => re.test(v.pointer))) {
      result.rejected.push({ pointer: v.pointer, reason: 'unknown pointer' });
      continue;
    }
    const value = coerce(v.pointer, v.value);
    if (value === undefined) {
      result.rejected.push({ pointer: v.pointer, reason: `value ${JSON.stringify(v.value)} has the wrong type` });
      continue;
    }
    result.candidates.push({ pointer: v.pointer, value, page: v.page, text: v.quote, confidence: 0.8, source: 'llm' });
  }
  return result;
}
