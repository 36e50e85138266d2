// A broken PDF's damaged objects must not reach the service's output as plain text: pdf-lib (reading a scan's
// stored JPEG in the PDF worker thread) warns once per damaged object, and `svc serve` writes JSON lines.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

test('a scan with a damaged object is read, and pdf-lib’s parser notes do not reach stderr', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'svc-pdf-console-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  // A generated scan with one malformed object (an unclosed array) and a dangling reference to it, placed
  // before the first real object: pdf-lib skips it with two warnings, pdf.js rebuilds the cross-references.
  const bytes = await readFile(path.join(root, 'fixtures/policies/coi_alpha_scan.pdf'));
  const at = bytes.indexOf('1 0 obj');
  t.true(at > 0);
  const file = path.join(dir, 'broken_scan.pdf');
  await writeFile(file, Buffer.concat([bytes.subarray(0, at), Buffer.from('77 0 obj\n<< /Type /Foo /Bar [ 1 2 >>\nendobj\n'), bytes.subarray(at)]));

  const child = spawn(process.execPath, [path.join(root, 'bin/svc.ts'), 'extract', file], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const code = await new Promise<number>((r) => child.on('close', (c) => r(c ?? 1)));
  t.is(code, 0, stderr);
  t.regex(stdout, /broken_scan\.pdf: Certificate of Liability Insurance \(ACORD 25\) — completed via ocr/);
  t.regex(stdout, /carrier\s+Commonwealth Casualty Company/);
  t.notRegex(stderr, /Trying to parse invalid object|Invalid object ref/);
});
