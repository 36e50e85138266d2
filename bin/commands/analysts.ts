// `svc analysts import-eval REPORT [--label L]`: store a `svc eval --json` report (file, or - for stdin)
// and the expected outputs of its fixtures in app_analyst, where analysts query them (psql or /graphql).
// `svc analysts export-labels --since DATE --out DIR [--mode live|test]`: one label file per reviewed document
// (corpus labels' schema, only the reviewed fields) under DIR/labels/, and the document under DIR/docs/ where its
// agency shares reviewed documents and retention kept it, so `svc eval --labels DIR/labels --docs DIR/docs` scores it.
import fs from 'node:fs';
import path from 'node:path';
import { commandArgs } from './args.ts';
import type pg from 'pg';
import { importEval } from '../../db/queries/analysts.ts';
import { reviewedExtractions } from '../../db/queries/reviews.ts';
import type { BlobStore } from '../../lib/blobs.ts';
import { labelOfReview } from '../../pipelines/extraction/review_labels.ts';
import type { ExtractedData } from '../../pipelines/extraction/schema.ts';

const usage =
  'usage: svc analysts import-eval REPORT.json|- [--label LABEL]\n       svc analysts export-labels --since YYYY-MM-DD --out DIR [--mode live|test]';

interface Report {
  dir: string;
  documents: number;
  documents_detail: Array<{ file: string }>;
}

/** The expected output beside each document of the report, keyed by its path relative to the report's dir. */
function fixturesOf(report: Report): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const d of report.documents_detail ?? []) {
    const expected = path.join(report.dir, `${d.file.replace(/\.[^./]+$/, '')}.expected.json`);
    if (fs.existsSync(expected)) out[path.relative(report.dir, expected)] = JSON.parse(fs.readFileSync(expected, 'utf8'));
  }
  return out;
}

const EXT: Record<string, string> = { 'application/pdf': 'pdf', 'image/jpeg': 'jpg', 'image/png': 'png' };

/** Write the labels (and shared documents) of every document reviewed since `since`; returns what was written. */
export async function exportLabels(
  db: pg.Pool,
  blobs: BlobStore,
  o: { since: Date; out: string; mode: 'test' | 'live' },
): Promise<{ labels: number; documents: number; skipped: number }> {
  const rows = await reviewedExtractions(db, o.since, o.mode);
  let labels = 0;
  let documents = 0;
  let skipped = 0;
  for (const r of rows) {
    const file = `agency-${r.agency_id}/${r.id}.${EXT[r.content_type] ?? 'bin'}`;
    const label = labelOfReview({ file, extractionId: r.id, entityType: r.entity_type, data: r.result as unknown as ExtractedData, reviews: r.reviews });
    if (!label) {
      skipped++;
      continue;
    }
    const bytes = r.shared_blob_key ? await blobs.get(r.shared_blob_key) : undefined;
    if (bytes) {
      fs.mkdirSync(path.dirname(path.join(o.out, 'docs', file)), { recursive: true });
      fs.writeFileSync(path.join(o.out, 'docs', file), bytes);
      documents++;
    }
    const labelPath = path.join(o.out, 'labels', file.replace(/\.[a-z]+$/, '.json'));
    fs.mkdirSync(path.dirname(labelPath), { recursive: true });
    fs.writeFileSync(labelPath, `${JSON.stringify(label, null, 2)}\n`);
    labels++;
  }
  return { labels, documents, skipped };
}

export async function run(argv: string[], pool: () => Promise<{ db: pg.Pool; close(): Promise<void> }>, blobs?: () => BlobStore): Promise<number> {
  const args = commandArgs(
    {
      args: argv,
      allowPositionals: true,
      options: { label: { type: 'string' }, since: { type: 'string' }, out: { type: 'string' }, mode: { type: 'string', default: 'live' } },
    },
    usage,
  );
  if (typeof args === 'number') return args;
  const [sub, file] = args.positionals;
  if (sub === 'export-labels') {
    const { since, out, mode } = args.values;
    const day = since && /^\d{4}-\d{2}-\d{2}$/.test(since) ? new Date(`${since}T00:00:00Z`) : undefined;
    if (!day || Number.isNaN(day.getTime()) || !out || (mode !== 'live' && mode !== 'test') || !blobs) {
      process.stderr.write(`error: export-labels needs --since YYYY-MM-DD and --out DIR (--mode live or test)\n${usage}\n`);
      return 2;
    }
    const opened = await pool();
    try {
      const n = await exportLabels(opened.db, blobs(), { since: day, out, mode });
      process.stdout.write(
        `${n.labels} label files in ${path.join(out, 'labels')}, ${n.documents} documents in ${path.join(out, 'docs')} (shared by their agencies); ${n.skipped} reviewed documents had no labelled field\n`,
      );
    } finally {
      await opened.close();
    }
    return 0;
  }
  if (sub !== 'import-eval' || !file) {
    process.stderr.write(`${usage}\n`);
    return 2;
  }
  let report: Report;
  try {
    report = JSON.parse(file === '-' ? fs.readFileSync(0, 'utf8') : fs.readFileSync(file, 'utf8')) as Report;
    if (typeof report.dir !== 'string' || !Array.isArray(report.documents_detail)) throw new Error('not a `svc eval --json` report');
  } catch (e) {
    process.stderr.write(`error: ${(e as Error).message}\n`);
    return 1;
  }
  const opened = await pool();
  try {
    const fixtures = fixturesOf(report);
    const id = await importEval(opened.db, args.values.label ?? null, report, fixtures);
    process.stdout.write(`eval run ${id} stored: ${report.documents} documents, ${Object.keys(fixtures).length} fixtures\n`);
  } finally {
    await opened.close();
  }
  return 0;
}
