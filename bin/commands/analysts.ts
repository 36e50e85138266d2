// `svc analysts import-eval REPORT [--label L]`: store a `svc eval --json` report (file, or - for stdin)
// and the expected outputs of its fixtures in app_analyst, where analysts query them (psql or /graphql).
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type pg from 'pg';
import { importEval } from '../../db/queries/analysts.ts';

const usage = 'usage: svc analysts import-eval REPORT.json|- [--label LABEL]';

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

export async function run(argv: string[], pool: () => Promise<{ db: pg.Pool; close(): Promise<void> }>): Promise<number> {
  let args;
  try {
    args = parseArgs({ args: argv, allowPositionals: true, options: { label: { type: 'string' } } });
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n${usage}\n`);
    return 2;
  }
  const [sub, file] = args.positionals;
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
