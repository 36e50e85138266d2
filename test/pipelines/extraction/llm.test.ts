import test from 'ava';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { extractDocument, closeDocumentPools } from '../../../pipelines/extraction/index.ts';
import { textPdf } from '../documents/helpers.ts';

test.after.always(() => closeDocumentPools());

interface Seen {
  path: string;
  body: Record<string, unknown>;
  auth?: string;
}

/** A real OpenAI-compatible server on 127.0.0.1 that answers every chat completion with `content`. */
async function stubLlm(content: string) {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      seen.push({ path: req.url ?? '', body: JSON.parse(raw || '{}'), auth: req.headers.authorization });
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          id: 'chatcmpl-test',
          object: 'chat.completion',
          created: 1_700_000_000,
          model: 'stub-model',
          choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, finish_reason: 'stop', logprobs: null }],
          usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { seen, baseURL: `http://127.0.0.1:${port}/v1`, close: () => new Promise<void>((r) => server.close(() => r())) };
}

// Page 1 has a policy reference the rules do not recognise ("Ref"); page 2 has nothing of it.
const doc = () =>
  textPdf([
    ['Harbor Light Insurance Company', 'Umbrella Declarations', 'Ref ZX-99812', 'Insured party: Jane Doe'],
    ['Schedule of underlying insurance', 'See attached forms and endorsements.'],
  ]);

const answer = (values: unknown[]) => JSON.stringify({ document_kind: 'umbrella', values });

test('a grounded LLM answer is merged with the rules and cited as llm', async (t) => {
  const llm = await stubLlm(
    answer([
      { pointer: '/policy/policy_number', value: 'ZX-99812', page: 1, quote: 'Ref ZX-99812' },
      { pointer: '/policy/provider', value: 'Harbor Light Insurance Company', page: 1, quote: 'Harbor Light Insurance Company' },
      { pointer: '/policy/not_a_field', value: 'x', page: 1, quote: 'x' },
    ]),
  );
  try {
    const r = await extractDocument(await doc(), {
      entityType: 'umbrella_policy',
      llm: { baseURL: llm.baseURL, model: 'stub-model', apiKey: 'sk-test', maxRetries: 0 },
    });
    t.is(r.extracted_data.policy.policy_number, 'ZX-99812');
    t.is(r.extracted_data.citations['/policy/policy_number'].source, 'llm');
    t.is(r.extracted_data.citations['/policy/policy_number'].page, 1);
    // The rules found the carrier too; agreement raises confidence above the rule's own.
    t.is(r.extracted_data.policy.provider, 'Harbor Light Insurance Company');
    t.true(r.extracted_data.citations['/policy/provider'].confidence > 0.8);
    t.is(r.parsing_method, 'pdf_text+llm');
    t.deepEqual(r._raw.llm?.rejected, [{ pointer: '/policy/not_a_field', reason: 'unknown pointer' }]);
    // What was sent: the model, a JSON-schema response format, the page-marked text, the key.
    t.is(llm.seen.length, 1);
    t.is(llm.seen[0].path, '/v1/chat/completions');
    t.is(llm.seen[0].body.model, 'stub-model');
    t.is((llm.seen[0].body.response_format as { type: string }).type, 'json_schema');
    t.regex(JSON.stringify(llm.seen[0].body.messages), /=== Page 2 ===/);
    t.is(llm.seen[0].auth, 'Bearer sk-test');
  } finally {
    await llm.close();
  }
});

test('an LLM value cited on the wrong page fails grounding and is not kept', async (t) => {
  const llm = await stubLlm(answer([{ pointer: '/policy/policy_number', value: 'ZX-99812', page: 2, quote: 'Ref ZX-99812' }]));
  try {
    const r = await extractDocument(await doc(), { entityType: 'umbrella_policy', llm: { baseURL: llm.baseURL, model: 'stub-model', maxRetries: 0 } });
    t.is(r.extracted_data.policy.policy_number, null);
    t.false('/policy/policy_number' in r.extracted_data.citations);
    const u = r._raw.ungrounded.find((x) => x.pointer === '/policy/policy_number');
    t.is(u?.source, 'llm');
    t.is(u?.page, 2);
    t.regex(u?.reason ?? '', /page 2/);
    // Kept only when asked, and then flagged.
    const flagged = await extractDocument(await doc(), {
      entityType: 'umbrella_policy',
      ungrounded: 'flag',
      llm: { baseURL: llm.baseURL, model: 'stub-model', maxRetries: 0 },
    });
    t.is(flagged.extracted_data.policy.policy_number, 'ZX-99812');
    t.true(flagged.extracted_data.citations['/policy/policy_number'].flagged);
  } finally {
    await llm.close();
  }
});

test('an LLM answer that is not valid JSON is reported and the rule results stand', async (t) => {
  const llm = await stubLlm('Sure! The policy number is ZX-99812 {not json');
  try {
    const r = await extractDocument(await doc(), { entityType: 'umbrella_policy', llm: { baseURL: llm.baseURL, model: 'stub-model', maxRetries: 0 } });
    t.is(r.extracted_data.policy.provider, 'Harbor Light Insurance Company');
    t.is(r.extracted_data.policy.policy_number, null);
    t.is(r.parsing_method, 'pdf_text');
    t.is(r.status, 'partial_success');
    t.true(r.errors.some((e) => e.stage === 'llm' && /not valid JSON/.test(e.message)));
    t.is(r._raw.llm?.answer, 'Sure! The policy number is ZX-99812 {not json');
  } finally {
    await llm.close();
  }
});

test('an unreachable LLM endpoint is an error in the record, not a crash', async (t) => {
  const llm = await stubLlm('{}');
  await llm.close(); // nothing listens on that port any more
  const r = await extractDocument(await doc(), {
    entityType: 'umbrella_policy',
    llm: { baseURL: llm.baseURL, model: 'stub-model', maxRetries: 0, timeoutMs: 5000 },
  });
  t.true(r.errors.some((e) => e.stage === 'llm' && /request failed/.test(e.message)));
  t.is(r.extracted_data.policy.provider, 'Harbor Light Insurance Company');
});
