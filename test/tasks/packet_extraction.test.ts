// A whole policy packet through the service: upload → documents__read (located) → extractions__extract → record.
import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import type { Runner } from 'graphile-worker';
import { finished, policiesDir, policyFixture, upload } from '../helpers/extraction.ts';
import { startService, type TestService, agencyWithTestKey } from '../helpers/server.ts';
import { startTestWorker } from '../helpers/worker.ts';

let svc: TestService;
let worker: Runner;

test.before(async () => {
  svc = await startService({});
  worker = await startTestWorker(svc);
});
test.after.always(async () => {
  await worker?.stop();
  await svc?.close();
});

test('a 200-page packet is read, not refused: its declarations found among 200 pages and its record completed', async (t) => {
  t.timeout(300_000);
  const { key, ...a } = await agencyWithTestKey(svc);
  const expected = JSON.parse(fs.readFileSync(path.join(policiesDir, 'packet_cpp_northgate.expected.json'), 'utf8'));
  const r = await upload(svc, key, a.ownerId, policyFixture('packet_cpp_northgate.pdf'), 'packet_cpp_northgate.pdf', {
    entity_type: 'commercial_general_liability',
  });
  t.is(r.status, 200, r.text);
  const rec = await finished(svc, key, a.ownerId, r.body.extraction_id, 240_000);
  t.is(rec.parsing_status, 'completed', JSON.stringify(rec).slice(0, 500));
  t.is(rec.extracted_data.policy.provider, expected.policy.provider);
  t.is(rec.extracted_data.policy.policy_number, expected.policy.policy_number);
  t.is(rec.extracted_data.citations['/policy/provider'].page, expected.located_pages.declarations);
});
