import test from 'ava';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { readDocument, rasterPdfPage, closeDocumentPools, langDataDir, normaliseImage, DocumentError } from '../../../pipelines/documents/index.ts';
import { fixture, fixturesDir, pngHeader } from './helpers.ts';
import { linesFromTsv, dropStrayQuotes } from '../../../pipelines/documents/ocr.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const execFileP = promisify(execFile);
test.after.always(() => closeDocumentPools());

const hasTesseract = (() => {
  try {
    execFileSync('tesseract', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

test('a scanned PDF page gives its embedded JPEG directly; a text page is rendered', async (t) => {
  const scan = await rasterPdfPage(fixture('home_granite_scan.pdf'), 1);
  t.is(scan.from, 'embedded');
  t.is(scan.kind, 'jpeg');
  t.deepEqual([...scan.data.subarray(0, 3)], [0xff, 0xd8, 0xff]);
  const rendered = await rasterPdfPage(fixture('umbrella_crest.pdf'), 1, 100);
  t.is(rendered.from, 'rendered');
  t.is(rendered.kind, 'png');
  t.is(rendered.width, Math.ceil((612 * 100) / 72));
});

test('normalisation applies EXIF orientation and targets 300 dpi', async (t) => {
  // The JPEG photo is stored rotated with EXIF orientation 6; upright it is taller than wide.
  const img = await normaliseImage(fixture('auto_acme_mutual_photo.jpg'));
  t.true(img.height > img.width);
  t.is(img.width, 2550);
  t.true(Math.abs(img.ptPerPx * img.width - 612) < 1);
});

test('normalisation refuses an image over the pixel limit', async (t) => {
  const e = await normaliseImage(pngHeader(9000, 9000), { maxInputPixels: 1_000_000 }).catch((x: unknown) => x);
  t.true(e instanceof DocumentError);
  t.is((e as DocumentError).code, 'bad_request');
});

test('scanned PDF: OCR reads the page into positioned lines', async (t) => {
  const d = await readDocument(fixture('home_granite_scan.pdf'));
  t.is(d.method, 'ocr');
  t.is(d.status, 'success');
  const p = d.pages[0];
  t.is(p.source, 'ocr');
  t.true(p.confidence > 0.6);
  t.regex(p.text, /Granite State Insurance/);
  const line = p.lines.find((l) => /Policy Number/.test(l.text));
  t.regex(line?.text ?? '', /HO3-552-0193/);
  // Positions are in page points like the text layer (the label sits near x = 50 pt).
  t.true(Math.abs((line?.x ?? 0) - 50) < 12);
});

test('photo (EXIF-rotated JPEG): OCR reads it upright', async (t) => {
  const d = await readDocument(fixture('auto_acme_mutual_photo.jpg'));
  t.is(d.pageCount, 1);
  t.is(d.method, 'ocr');
  t.regex(d.pages[0].text, /Acme Mutual Insurance/);
  t.regex(d.pages[0].text, /AM-4412-0987/);
});

test('language data comes from the @tesseract.js-data/eng package in node_modules', (t) => {
  const dir = langDataDir();
  t.true(dir.includes(`${path.sep}node_modules${path.sep}@tesseract.js-data${path.sep}eng`));
  t.true(fs.existsSync(path.join(dir, 'eng.traineddata.gz')));
});

test('offline: OCR works with the network blocked in every thread and writes nothing to the cwd', async (t) => {
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-offline-'));
  const node = process.execPath;
  const { stdout, stderr } = await execFileP(
    node,
    ['--import', import.meta.resolve('tsx'), '--import', path.join(here, 'no_network.mjs'), path.join(here, 'offline_run.ts'), fixturesDir],
    { cwd, timeout: 150_000 },
  ).catch((e: { stdout: string; stderr: string }) => e);
  t.log(
    stderr
      .split('\n')
      .filter((l) => !/diacritics|Estimating/.test(l))
      .join('\n')
      .slice(0, 2000),
  );
  const attempts = stderr.split('\n').filter((l) => l.startsWith('NETWORK-ATTEMPT'));
  // Only the canary fetch from a worker thread, which shows the guard covers threads.
  t.is(attempts.length, 1);
  t.regex(attempts[0], /canary\.invalid.*thread [1-9]/);
  const r = JSON.parse(stdout) as { method: string; status: string; text: string; langDataDir: string; cwdFiles: string[] };
  t.is(r.method, 'ocr');
  t.regex(r.text, /Maple Leaf Insurance/);
  t.deepEqual(r.cwdFiles, []);
  fs.rmSync(cwd, { recursive: true, force: true });
});

(hasTesseract ? test : test.skip)('tesseract-cli engine gives the same words-with-positions structure', async (t) => {
  const d = await readDocument(fixture('home_granite_scan.pdf'), { ocr: { engine: { kind: 'tesseract-cli', path: 'tesseract' } } });
  t.is(d.ocrEngine, 'tesseract-cli');
  t.regex(d.pages[0].text, /Granite State Insurance/);
  t.true(d.pages[0].lines.every((l) => l.cells.every((c) => c.source === 'ocr' && c.w > 0)));
});

test('a truncated JPEG photo is refused with a §7.2 code, not a crash', async (t) => {
  const jpg = fixture('auto_acme_mutual_photo.jpg');
  const e = await readDocument(jpg.subarray(0, Math.floor(jpg.length / 3))).catch((x: unknown) => x);
  t.true(e instanceof DocumentError);
  t.true(['extraction_failed', 'bad_request'].includes((e as DocumentError).code));
});

test('TSV from either engine: word rows grouped into the engine lines in order, boxes in page points', (t) => {
  const tsv = [
    'level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext',
    '4\t1\t1\t1\t1\t0\t100\t100\t400\t30\t-1\t',
    '5\t1\t1\t1\t1\t1\t100\t100\t150\t30\t96.5\tPolicy',
    '5\t1\t1\t1\t1\t2\t260\t100\t200\t30\t91\tNumber',
    '5\t1\t1\t1\t2\t1\t100\t150\t300\t30\t88\tHO-123456',
    '5\t1\t2\t1\t1\t1\t900\t100\t100\t30\t50\t ',
    '5\t1\t2\t1\t1\t1\t900\t100\t100\t30\t70\tJane',
  ].join('\n');
  const lines = linesFromTsv(tsv, 0.24);
  t.deepEqual(
    lines.map((l) => l.map((w) => w.text)),
    [['Policy', 'Number'], ['HO-123456'], ['Jane']],
  );
  t.deepEqual(
    lines.map((l) => l.map((w) => w.line)),
    [[0, 0], [1], [2]],
  );
  const w = lines[0][0];
  t.is(w.x, 24);
  t.is(w.y, 24);
  t.is(w.w, 36);
  t.is(w.conf, 0.965);
});

test('a quote glued to a word that nothing later on its line closes is scanner noise and dropped', (t) => {
  const line = (...texts: string[]) =>
    dropStrayQuotes(texts.map((text, k) => ({ text, x: 50 + 40 * k, y: 100, w: 35, h: 8, source: 'ocr' as const }))).map((w) => w.text);
  t.deepEqual(line("'88", 'Foundry', 'Rd'), ['88', 'Foundry', 'Rd']);
  t.deepEqual(line('"Total', 'Premium:'), ['Total', 'Premium:']);
  t.deepEqual(line('"Insured"', 'means'), ['"Insured"', 'means']);
  t.deepEqual(line("'Bodily", "Injury'"), ["'Bodily", "Injury'"]);
  t.deepEqual(line("Employers'", 'Liability'), ["Employers'", 'Liability']);
});
