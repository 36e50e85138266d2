// `svc analysts export-labels`: reviewed extractions become label files in the corpus labels' schema (only the
// fields a person reviewed), with the document where the agency opted in; the export round-trips through
// `svc eval --labels` (runLabelled), which scores the engine against the reviewers' values.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { runLabelled, summarise } from '../../bin/commands/eval_labels.ts';
import { exportLabels, run } from '../../bin/commands/analysts.ts';
import { closeDocumentPools } from '../../pipelines/extraction/index.ts';
import { extractedCoi, sharingAndPrivate } from '../helpers/extraction.ts';
import { startService, type TestService } from '../helpers/server.ts';

let svc: TestService;
test.before(async () => {
  svc = await startService();
});
test.after.always(async () => {
  await closeDocumentPools();
  await svc?.close();
});

test('reviewed documents export as labels of their reviewed fields, with the document where the agency shares it, and score through svc eval --labels', async (t) => {
  t.timeout(120_000);
  const { a, b, ownerA, ownerB, review } = await sharingAndPrivate(svc);
  const xa = await extractedCoi(svc, a);
  const xb = await extractedCoi(svc, b);
  const notReviewed = await extractedCoi(svc, a);
  await review(ownerA, xa, '/certificate/producer', 'confirmed');
  await review(ownerA, xa, '/certificate/insured', 'corrected', 'Someone Else Inc'); // the engine will be scored wrong here
  await review(ownerA, xa, '/certificate/coverages/0/each_occurrence', 'confirmed');
  await review(ownerA, xa, '/certificate/certificate_holder', 'not_on_document');
  await review(ownerB, xb, '/certificate/producer', 'confirmed');

  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'export-labels-'));
  t.teardown(() => fs.rmSync(out, { recursive: true, force: true }));
  const n = await exportLabels(svc.tdb.db.owner, svc.deps.blobs, { since: new Date(Date.now() - 86_400_000), out, mode: 'test' });
  t.deepEqual(n, { labels: 2, documents: 1, skipped: 0 });
  const labelA = JSON.parse(fs.readFileSync(path.join(out, 'labels', `agency-${a.agencyId}`, `${xa}.json`), 'utf8'));
  t.like(labelA, {
    file: `agency-${a.agencyId}/${xa}.pdf`,
    doc_kind: 'acord25',
    entity_type: 'declaration_page',
    producer: 'Alpha Risk Advisors LLC',
    insured: 'Someone Else Inc',
    certificate_holder: null,
    insurers: {},
    pages: { producer: 1, insured: 1 },
  });
  t.is(labelA.coverages.length, 1);
  t.like(labelA.coverages[0], { type: 'commercial_general_liability', each_occurrence: 1_000_000 });
  t.false('policy' in labelA, 'fields nobody reviewed are not labelled');
  t.true(fs.existsSync(path.join(out, 'docs', `agency-${a.agencyId}`, `${xa}.pdf`)), 'the sharing agency’s document');
  t.false(fs.existsSync(path.join(out, 'docs', `agency-${b.agencyId}`)), 'no document of an agency that did not opt in');
  t.true(fs.existsSync(path.join(out, 'labels', `agency-${b.agencyId}`, `${xb}.json`)));
  t.false(fs.existsSync(path.join(out, 'labels', `agency-${a.agencyId}`, `${notReviewed}.json`)));

  // Round trip: svc eval --labels scores the engine on the reviewed fields.
  const runs = await runLabelled(path.join(out, 'labels'), path.join(out, 'docs'), `agency-${a.agencyId}/`);
  t.is(runs.length, 1);
  const s = summarise(runs);
  t.deepEqual(s.fields['certificate.producer'], { n: 1, ok: 1 });
  t.deepEqual(s.fields['certificate.insured'], { n: 1, ok: 0 }, 'the reviewer’s correction is the truth');
  t.deepEqual(s.fields['coverage.each_occurrence'], { n: 1, ok: 1 });

  // Nothing reviewed since tomorrow; a bad date is refused with the usage.
  const later = await exportLabels(svc.tdb.db.owner, svc.deps.blobs, { since: new Date(Date.now() + 86_400_000), out: path.join(out, 'none'), mode: 'test' });
  t.deepEqual(later, { labels: 0, documents: 0, skipped: 0 });
  const pool = async () => ({ db: svc.tdb.db.owner, close: async () => {} });
  t.is(await run(['export-labels', '--since', 'yesterday', '--out', out], pool, () => svc.deps.blobs), 2);
  t.is(await run(['export-labels', '--since', '2026-01-01', '--out', out, '--mode', 'staging'], pool, () => svc.deps.blobs), 2);
});
