// A wall-clock budget per stage: the text layer of a document and the OCR of one page each end at their budget
// (the worker running them is terminated), as extraction_failed / stage_budget, whatever the per-call time-outs.
import test from 'ava';
import { closeDocumentPools, DocumentError, ocrPage, readTextLayer, sniff, StageBudgetError } from '../../../pipelines/documents/index.ts';
import { fixture } from './helpers.ts';

test.after.always(closeDocumentPools);

function isBudgetError(t: import('ava').ExecutionContext, err: unknown, stage: RegExp, budgetMs = 1) {
  t.true(err instanceof StageBudgetError, String(err));
  t.true(err instanceof DocumentError);
  const e = err as DocumentError;
  t.is(e.code, 'extraction_failed');
  t.is(e.reason, 'stage_budget');
  t.regex(e.details ?? '', stage);
  t.regex(e.details ?? '', new RegExp(`budget of ${budgetMs} ms`));
}

test('reading a text layer past its budget fails the document with the reason, and a generous budget reads it', async (t) => {
  const pdf = fixture('auto_acme_mutual.pdf');
  const err = await readTextLayer(pdf, { stageBudgetMs: 1 }).catch((e: unknown) => e);
  isBudgetError(t, err, /the text stage took longer/);
  const read = await readTextLayer(pdf, { stageBudgetMs: 60_000 });
  t.true(read.pages.length > 0, 'the pool works again after the terminated worker');
});

test('OCR of a page past its budget fails with the reason instead of waiting for the per-page time-out', async (t) => {
  const scan = fixture('cgl_keystone_scan.pdf');
  const sniffed = sniff(scan);
  // The engine's own time-out is two minutes; the budget ends the page first (starting the engine alone takes longer),
  // and the engine's worker is terminated rather than left reading.
  const started = Date.now();
  const err = await ocrPage(scan, sniffed, 1, { stageBudgetMs: 1500, ocr: { timeoutMs: 120_000 } }).catch((e: unknown) => e);
  isBudgetError(t, err, /the OCR \(page 1\) stage took longer/, 1500);
  t.log(`ended after ${Date.now() - started} ms`);
  // The next page is read by a fresh worker.
  const page = await ocrPage(scan, sniffed, 1, { stageBudgetMs: 120_000 });
  t.true(page.page.lines.length > 0);
});
