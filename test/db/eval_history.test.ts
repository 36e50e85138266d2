// 0028 as SQL: app_private.record_eval_history keeps a run per field and document kind (accuracy and
// calibration computed by the table), refuses counts out of order, and is not the analyst's to call; svc_analyst
// reads the history and the reviewers' corrections (app_analyst.corrections, review_calibration) of agencies that
// share reviewed documents in that mode, and nothing of an agency that does not, nor the audit table itself.
import test from 'ava';
import { emptyExtractedData } from '../../pipelines/extraction/schema.ts';
import { asRole, testDatabase, type TestDatabase } from '../helpers/db.ts';
import { as, seedAgency, sqlError } from '../helpers/seed.ts';

let tdb: TestDatabase;
test.before(async () => {
  tdb = await testDatabase();
});
test.after.always(async () => tdb?.drop());

/** One statement as svc_analyst (the role PostGraphile gives an analyst token). */
const asAnalyst = (sql: string, values?: unknown[]) => asRole(tdb.db, 'svc_analyst', sql, values);

const record = (dir: string, documents: number, fields: unknown[]) =>
  tdb.db.owner
    .query<{ id: string }>('select app_private.record_eval_history($1, $2, $3) as id', [dir, documents, JSON.stringify(fields)])
    .then((r) => Number(r.rows[0].id));

test('record_eval_history keeps a run per field and kind with its accuracy and calibration; svc_analyst reads it but cannot write it', async (t) => {
  const fields = [
    { field: 'certificate.insured', kind: 'acord25', compared: 8, correct: 6, high_confidence: 5, high_confidence_wrong: 1 },
    { field: 'certificate.insured', kind: 'noncord_certificate', compared: 2, correct: 2, high_confidence: 0, high_confidence_wrong: 0 },
    { field: 'policy.provider', kind: 'home_dec', compared: 4, correct: 3, high_confidence: 4, high_confidence_wrong: 1 },
  ];
  const first = await record('/labels', 12, fields);
  const second = await record('/labels', 12, [{ ...fields[0], correct: 7, high_confidence_wrong: 0 }]);
  t.true(second > first);
  const [run] = await asAnalyst(
    'select labels_dir, documents, compared, correct, high_confidence, high_confidence_wrong from app_analyst.eval_history_runs where id = $1',
    [first],
  );
  t.deepEqual(run, { labels_dir: '/labels', documents: 12, compared: 14, correct: 11, high_confidence: 9, high_confidence_wrong: 2 });
  const rows = await asAnalyst(
    'select field, kind, accuracy, high_confidence_wrong_rate from app_analyst.eval_history where run_id = $1 order by field, kind',
    [first],
  );
  t.deepEqual(rows, [
    { field: 'certificate.insured', kind: 'acord25', accuracy: '0.7500', high_confidence_wrong_rate: '0.2000' },
    { field: 'certificate.insured', kind: 'noncord_certificate', accuracy: '1.0000', high_confidence_wrong_rate: null },
    { field: 'policy.provider', kind: 'home_dec', accuracy: '0.7500', high_confidence_wrong_rate: '0.2500' },
  ]);
  const byField = await asAnalyst(
    `select run_id, compared, correct, accuracy, high_confidence_wrong_rate from app_analyst.eval_history_by_field where field = 'certificate.insured' order by run_id`,
  );
  t.deepEqual(
    byField.map((r) => [Number(r.run_id), r.compared, r.correct, r.accuracy, r.high_confidence_wrong_rate]),
    [
      [first, 10, 8, '0.8000', '0.2000'],
      [second, 8, 7, '0.8750', '0.0000'],
    ],
  );

  // Counts out of order are refused by the table; the analyst cannot record.
  t.is((await sqlError(record('/labels', 1, [{ ...fields[0], correct: 9 }]))).code, '23514');
  t.is((await sqlError(record('/labels', 1, [{ ...fields[0], high_confidence_wrong: 6 }]))).code, '23514');
  t.is((await sqlError(asAnalyst(`select app_private.record_eval_history('/x', 1, '[]')`))).code, '42501');
  t.is(
    (
      await sqlError(
        asAnalyst(
          `insert into app_analyst.eval_history_runs (labels_dir, documents, compared, correct, high_confidence, high_confidence_wrong) values ('/x', 0, 0, 0, 0, 0)`,
        ),
      )
    ).code,
    '42501',
  );
});

const CERTIFICATE = {
  ...emptyExtractedData('certificate'),
  policy_type: 'ACORD 25 Certificate of Liability Insurance',
  certificate: {
    producer: 'Alpha Risk Advisors LLC',
    insured: 'Harbor Lane Bakery',
    certificate_holder: 'City of Springfield',
    insurers: [{ letter: 'A', name: 'Granite Mutual' }],
    coverages: [{ type: 'general_liability', policy_number: 'GL-1', each_occurrence: 1000000 }],
  },
  citations: {
    '/certificate/insured': { page: 1, text: 'Harbor Lane Bakery', confidence: 0.95, source: 'rules' },
    '/certificate/producer': { page: 1, text: 'Alpha Risk Advisors LLC', confidence: 0.97, source: 'rules' },
    '/certificate/coverages/0/each_occurrence': { page: 1, text: '1,000,000', confidence: 0.6, source: 'rules' },
  },
  needs_review: [],
};

/** A delivered certificate extraction of the agency in `mode`. */
async function delivered(a: Awaited<ReturnType<typeof seedAgency>>, mode: 'test' | 'live'): Promise<string> {
  const { rows } = await tdb.db.owner.query<{ id: string }>(
    `with d as (insert into app_public.documents (agency_id, agent_id, mode, blob_key, filename, content_type, size_bytes, sha256, page_count)
                values ($1, $2, $3, 'blob-' || gen_random_uuid(), 'coi.pdf', 'application/pdf', 1000, repeat('0', 64), 1) returning id)
     insert into app_public.extractions (document_id, agency_id, agent_id, mode, entity_type, status, parsing_method, result)
     select d.id, $1, $2, $3, 'declaration_page', 'completed', 'text', $4::jsonb from d returning id`,
    [a.agencyId, a.ownerId, mode, JSON.stringify(CERTIFICATE)],
  );
  return rows[0].id;
}

test('svc_analyst reads the corrections and real-traffic calibration of agencies that share reviewed documents, in that mode only', async (t) => {
  const sharing = await seedAgency(tdb, 'hist-share');
  const private_ = await seedAgency(tdb, 'hist-private');
  const ownerOf = (a: typeof sharing, mode: 'test' | 'live') => ({ ...a.owner, mode });
  await as(tdb, ownerOf(sharing, 'test'), 'select app_public.set_share_reviewed_documents(true)');
  // The private agency turned hold for review on (a settings row) but never shared.
  await as(tdb, ownerOf(private_, 'test'), 'select app_public.set_hold_for_review(true)');
  const review = (a: typeof sharing, mode: 'test' | 'live', id: string, pointer: string, action: string, value: unknown = null) =>
    as(tdb, ownerOf(a, mode), 'select app_public.review_field($1, $2, $3, $4)', [id, pointer, action, JSON.stringify(value)]);

  const xs = await delivered(sharing, 'test');
  await review(sharing, 'test', xs, '/certificate/insured', 'corrected', 'Harbor Lane Bakery & Cafe LLC');
  await review(sharing, 'test', xs, '/certificate/producer', 'confirmed');
  await review(sharing, 'test', xs, '/certificate/coverages/0/each_occurrence', 'not_on_document');
  const xl = await delivered(sharing, 'live'); // the agency shares in test mode only
  await review(sharing, 'live', xl, '/certificate/insured', 'corrected', 'Live Secret Name');
  const xp = await delivered(private_, 'test');
  await review(private_, 'test', xp, '/certificate/insured', 'corrected', 'Private Secret Name');

  const rows = await asAnalyst(
    'select extraction_id, agency_id, mode, kind, pointer, field, action, old_value, new_value, confidence, was_wrong from app_analyst.corrections order by review_id',
  );
  t.deepEqual(
    rows.map((r) => [r.extraction_id, r.agency_id, r.mode, r.kind, r.field, r.action, r.old_value, r.new_value, r.confidence, r.was_wrong]),
    [
      [xs, sharing.agencyId, 'test', 'acord25', 'certificate.insured', 'corrected', 'Harbor Lane Bakery', 'Harbor Lane Bakery & Cafe LLC', '0.95', true],
      [xs, sharing.agencyId, 'test', 'acord25', 'certificate.producer', 'confirmed', 'Alpha Risk Advisors LLC', 'Alpha Risk Advisors LLC', '0.97', false],
      [xs, sharing.agencyId, 'test', 'acord25', 'coverage.each_occurrence', 'not_on_document', 1000000, null, '0.6', true],
    ],
  );
  const all = JSON.stringify(await asAnalyst('select * from app_analyst.corrections'));
  t.false(all.includes('Private Secret Name'), 'nothing of an agency that does not share');
  t.false(all.includes('Live Secret Name'), 'nothing of a mode the agency does not share');

  const calibration = await asAnalyst(
    'select field, kind, reviewed, wrong, high_confidence, high_confidence_wrong, high_confidence_wrong_rate from app_analyst.review_calibration order by field',
  );
  t.deepEqual(calibration, [
    {
      field: 'certificate.insured',
      kind: 'acord25',
      reviewed: 1,
      wrong: 1,
      high_confidence: 1,
      high_confidence_wrong: 1,
      high_confidence_wrong_rate: '1.0000',
    },
    {
      field: 'certificate.producer',
      kind: 'acord25',
      reviewed: 1,
      wrong: 0,
      high_confidence: 1,
      high_confidence_wrong: 0,
      high_confidence_wrong_rate: '0.0000',
    },
    {
      field: 'coverage.each_occurrence',
      kind: 'acord25',
      reviewed: 1,
      wrong: 1,
      high_confidence: 0,
      high_confidence_wrong: 0,
      high_confidence_wrong_rate: null,
    },
  ]);

  // Opting in later shows the private agency's reviews; opting out hides the sharing one's again.
  await as(tdb, ownerOf(private_, 'test'), 'select app_public.set_share_reviewed_documents(true)');
  await as(tdb, ownerOf(sharing, 'test'), 'select app_public.set_share_reviewed_documents(false)');
  t.deepEqual(
    (await asAnalyst('select extraction_id, new_value from app_analyst.corrections')).map((r) => [r.extraction_id, r.new_value]),
    [[xp, 'Private Secret Name']],
  );

  // The tables underneath stay closed to the analyst.
  for (const sql of ['select * from app_public.field_reviews', 'select * from app_public.review_settings', 'select filename from app_public.documents']) {
    t.is((await sqlError(asAnalyst(sql))).code, '42501', sql);
  }
});

test('label_field and label_kind name a pointer and a document as `svc eval --labels` does', async (t) => {
  const field = async (p: string) => (await tdb.db.owner.query('select app_private.label_field($1) as f', [p])).rows[0].f;
  t.is(await field('/policy/policy_number'), 'policy.policy_number');
  t.is(await field('/policyholder/last_name'), 'policyholder');
  t.is(await field('/policyholder/address'), 'policyholder.address');
  t.is(await field('/property/dwelling'), 'property.dwelling');
  t.is(await field('/certificate/certificate_holder'), 'certificate.certificate_holder');
  t.is(await field('/certificate/insurers/2/name'), 'certificate.insurer');
  t.is(await field('/certificate/coverages/3/general_aggregate'), 'coverage.general_aggregate');
  t.is(await field('/coverages/12/limit'), '/coverages/*/limit');
  const kind = async (r: unknown) => (await tdb.db.owner.query('select app_private.label_kind($1) as k', [JSON.stringify(r)])).rows[0].k;
  t.is(await kind({ document_kind: 'certificate', policy_type: 'Acord 24 Evidence of Property Insurance' }), 'acord24');
  t.is(await kind({ document_kind: 'certificate', policy_type: 'Certificate of Insurance' }), 'noncord_certificate');
  t.is(await kind({ document_kind: 'homeowners' }), 'home_dec');
  t.is(await kind({ document_kind: 'commercial_package' }), 'other');
});
