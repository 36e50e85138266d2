// Analysts (GraphQL names of app_analyst carry the schema: allAppAnalystEvalRuns): test-mode extractions with their citations under a row-level policy, eval runs and fixtures
// imported from `svc eval --json`; and what svc_analyst cannot read.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { createOperatorToken } from '../../db/queries/operators.ts';
import { hashToken, newToken } from '../../lib/secrets.ts';
import { asRole, refusedAs } from '../helpers/db.ts';
import { runSvc } from '../helpers/cli.ts';
import { startService, type TestService } from '../helpers/server.ts';

let svc: TestService;
let agency: { agencyId: number; ownerId: number };

test.before(async () => {
  svc = await startService();
  const c = await svc.oauthClient();
  agency = await svc.agency(c.token);
});
test.after.always(async () => svc?.close());

const as = (role: 'svc_analyst' | 'svc_operator', sql: string, values?: unknown[]) => asRole(svc.tdb.db, role, sql, values);

async function seedExtraction(mode: 'test' | 'live', result: unknown): Promise<string> {
  const o = svc.tdb.db.owner;
  const doc = await o.query(
    `insert into app_public.documents (agency_id, agent_id, mode, blob_key, filename, content_type, size_bytes, sha256)
     values ($1, $2, $3, gen_random_uuid()::text, 'Jane Doe policy.pdf', 'application/pdf', 10, repeat('b', 64)) returning id`,
    [agency.agencyId, agency.ownerId, mode],
  );
  const x = await o.query(
    `insert into app_public.extractions (document_id, agency_id, agent_id, mode, entity_type, result) values ($1, $2, $3, $4, 'auto_policy', $5) returning id`,
    [doc.rows[0].id, agency.agencyId, agency.ownerId, mode, JSON.stringify(result)],
  );
  return x.rows[0].id;
}

test('analysts see test-mode extractions and one row per cited value; live customers stay invisible', async (t) => {
  const result = {
    policy: { provider: 'Acme Mutual', policy_number: 'AM-123' },
    vehicles: [{ vin: '1HGCM82633A004352' }],
    citations: {
      '/policy/provider': { page: 1, text: 'Acme Mutual Insurance Company', confidence: 0.93, source: 'rules' },
      '/vehicles/0/vin': { page: 2, text: 'VIN 1HGCM82633A004352', confidence: 0.88, source: 'rules', flagged: true },
    },
  };
  const testId = await seedExtraction('test', result);
  const liveId = await seedExtraction('live', result);
  const rows = await as('svc_analyst', 'select * from app_analyst.test_extractions');
  t.deepEqual(
    rows.map((r) => r.extraction_id),
    [testId],
  );
  t.is(rows[0].extracted_data.policy.policy_number, 'AM-123');
  const cites = await as(
    'svc_analyst',
    'select pointer, value, page, quote, confidence, source, flagged from app_analyst.test_extraction_citations where extraction_id = $1 order by pointer',
    [testId],
  );
  t.deepEqual(cites, [
    { pointer: '/policy/provider', value: 'Acme Mutual', page: 1, quote: 'Acme Mutual Insurance Company', confidence: '0.93', source: 'rules', flagged: false },
    { pointer: '/vehicles/0/vin', value: '1HGCM82633A004352', page: 2, quote: 'VIN 1HGCM82633A004352', confidence: '0.88', source: 'rules', flagged: true },
  ]);
  t.deepEqual(await as('svc_analyst', 'select * from app_analyst.test_extraction_citations where extraction_id = $1', [liveId]), []);
  t.deepEqual(await as('svc_analyst', `select id from app_public.extractions where mode = 'live'`), [], 'the row policy holds on the table itself');
});

test("svc_analyst cannot read operators' views, documents, agencies, secrets or columns outside its grant; operators cannot read analysts' tables", async (t) => {
  await refusedAs(t, svc.tdb.db, 'svc_analyst', [
    'select * from app_ops.jobs',
    'select filename from app_public.documents',
    'select agency_id from app_public.extractions',
    'select * from app_public.agencies',
    'select * from app_private.operator_tokens',
    'select * from graphile_worker.jobs',
  ]);
  await refusedAs(t, svc.tdb.db, 'svc_operator', ['select * from app_analyst.test_extractions', 'select * from app_analyst.eval_runs']);
});

test('svc analysts import-eval stores a report and its fixtures; analysts query them over GraphQL', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'svc-eval-'));
  try {
    await writeFile(path.join(dir, 'auto_x.expected.json'), JSON.stringify({ entity_type: 'auto_policy', policy: { policy_number: 'X-1' } }));
    const report = {
      dir,
      documents: 1,
      overall: { tp: 3, fp: 1, fn: 1, precision: 0.75, recall: 0.75 },
      fields: {
        '/policy/policy_number': { tp: 1, fp: 0, fn: 0, precision: 1, recall: 1 },
        '/policy/provider': { tp: 2, fp: 1, fn: 1, precision: 0.667, recall: 0.667 },
      },
      documents_detail: [
        {
          file: 'auto_x.pdf',
          method: 'text',
          ms: 812.4,
          fields: { '/policy/provider': { tp: 2, fp: 1, fn: 1 }, '/policy/policy_number': { tp: 1, fp: 0, fn: 0 } },
          misses: [{ pointer: '/policy/provider', expected: 'Acme', got: 'Acme Ins' }],
        },
      ],
    };
    const file = path.join(dir, 'report.json');
    await writeFile(file, JSON.stringify(report));
    const imported = await runSvc(svc, ['analysts', 'import-eval', file, '--label', 'nightly']);
    const out = imported.stdout + imported.stderr;
    t.is(imported.code, 0, out);
    t.regex(out, /eval run \d+ stored: 1 documents, 1 fixtures/);

    const [run] = await as('svc_analyst', 'select * from app_analyst.eval_runs');
    t.like(run, { label: 'nightly', documents: 1, tp: 3, fp: 1, fn: 1, precision: '0.75' });
    const [doc] = await as('svc_analyst', 'select * from app_analyst.eval_documents');
    t.like(doc, { file: 'auto_x.pdf', parsing_method: 'text', ms: 812, tp: 3, fp: 1, fn: 1 });
    t.deepEqual(doc.misses, report.documents_detail[0].misses);
    const [fixture] = await as('svc_analyst', 'select * from app_analyst.fixtures');
    t.like(fixture, { path: 'auto_x.expected.json', entity_type: 'auto_policy' });

    const analyst = newToken('ops_', 32);
    await createOperatorToken(svc.tdb.db.owner, 'Ana', 'analyst', hashToken(analyst));
    const q = await svc.request('POST', '/graphql', {
      token: analyst,
      json: {
        query:
          '{ allAppAnalystEvalFields(first: 10, orderBy: [FIELD_ASC]) { nodes { field precision recall } } allAppAnalystEvalRuns(first: 1) { nodes { label recall } } }',
      },
    });
    t.is(q.status, 200, q.text);
    t.deepEqual(q.body.data.allAppAnalystEvalRuns.nodes, [{ label: 'nightly', recall: '0.75' }]);
    t.deepEqual(
      q.body.data.allAppAnalystEvalFields.nodes.map((n: { field: string }) => n.field),
      ['/policy/policy_number', '/policy/provider'],
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
