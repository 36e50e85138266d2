// Prompt v1 for the LLM extractor: the model returns every value it finds as a JSON pointer into
// extracted_data, the value, the page it is on and the exact text it read, so each value can be grounded.
import { z } from 'zod';

export const version = 'extraction.v1';

/**
 * The answer the model must give (sent as a JSON schema through structured outputs). `kinds` is the list of
 * document kinds the extractor knows (`documentKinds`), so the prompt never lists them by hand.
 */
export function answerSchemaFor(kinds: readonly string[]) {
  return z.object({
    document_kind: z.string().describe(`one of: ${kinds.join(', ')}`),
    values: z.array(
      z.object({
        pointer: z.string().describe('JSON pointer into the record, e.g. /policy/policy_number or /vehicles/0/vin'),
        value: z.union([z.string(), z.number(), z.boolean(), z.null()]),
        page: z.number().int().describe('1-based page number the value was read from'),
        quote: z.string().describe('the exact text on that page the value was read from'),
      }),
    ),
  });
}
export type Answer = z.infer<ReturnType<typeof answerSchemaFor>>;

export const systemPrompt = `You extract structured data from insurance documents (declarations pages, policies, certificates of insurance).
Return only values that are printed in the document. Never guess or compute values.
For every value give: the JSON pointer where it belongs, the value, the 1-based page number it is printed on, and a short exact quote of the text it was read from.
Pointers you may use:
/policy/provider (insurance company), /policy/policy_number, /policy/effective_date and /policy/expiration_date (YYYY-MM-DD), /policy/premium (number, total premium),
/policyholder/first_name, /policyholder/last_name, /policyholder/organization (for businesses), /policyholder/address (one line),
/coverages/N/name, /coverages/N/limit (number, or "100000/300000" for split limits), /coverages/N/deductible, /coverages/N/premium,
/vehicles/N/year, /vehicles/N/make, /vehicles/N/model, /vehicles/N/vin, /drivers/N/name, /drivers/N/first_name, /drivers/N/last_name,
/property/address, /property/dwelling, /property/other_structures, /property/personal_property, /property/loss_of_use, /property/personal_liability, /property/medical_payments, /property/deductible,
/interested_parties/N/name, /interested_parties/N/role (additional_insured, interested_party, mortgagee, additional_interest, certificate_holder, lienholder, loss_payee), /interested_parties/N/address,
/certificate/producer, /certificate/insured, /certificate/certificate_holder, /certificate/insurers/N/letter, /certificate/insurers/N/name, /certificate/insurers/N/naic,
/certificate/coverages/N/type (general_liability, automobile_liability, umbrella_liability, workers_compensation, property, other), /certificate/coverages/N/insurer_letter, /certificate/coverages/N/policy_number, /certificate/coverages/N/effective_date, /certificate/coverages/N/expiration_date, /certificate/coverages/N/each_occurrence, /certificate/coverages/N/general_aggregate, /certificate/coverages/N/combined_single_limit, /certificate/coverages/N/umbrella_each_occurrence, /certificate/coverages/N/wc_statutory (boolean), /certificate/coverages/N/el_each_accident, /certificate/coverages/N/additional_insured (boolean), /certificate/coverages/N/subrogation_waived (boolean).
Money values are plain numbers without symbols or commas.`;

/** The user message: each page's text, marked with its number. */
export function userPrompt(pages: { page: number; text: string }[], hint: string | undefined, maxChars: number): string {
  let body = '';
  for (const p of pages) {
    const chunk = `=== Page ${p.page} ===\n${p.text}\n`;
    if (body.length + chunk.length > maxChars) {
      body += `=== (remaining pages omitted) ===\n`;
      break;
    }
    body += chunk;
  }
  return `${hint ? `The caller says this is a ${hint} document.\n` : ''}Document text follows.\n\n${body}`;
}
