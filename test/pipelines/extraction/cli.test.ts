import test from 'ava';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { fixturesDir, encryptedPdf } from '../documents/helpers.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

/** Run a command in a child process with no LLM configured; resolves with its exit code and output. */
function svc(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('LLM_') && k !== 'OCR_ENGINE'));
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', import.meta.resolve('tsx'), path.join(here, 'cli_runner.ts'), ...args],
      { env, timeout: 120_000 },
      (err, stdout, stderr) => {
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'svc-cli-'));

test('svc extract FILE --json prints the §2.9 record', async (t) => {
  const r = await svc(['extract', path.join(fixturesDir, 'home_granite.pdf'), '--type', 'home_policy', '--json']);
  t.is(r.code, 0, r.stderr);
  const rec = JSON.parse(r.stdout);
  for (const k of [
    'success',
    'extraction_id',
    'document_id',
    'agent_id',
    'filename',
    'entity_type',
    'parsing_status',
    'parsing_method',
    'extracted_data',
    'created_at',
    'updated_at',
  ])
    t.true(k in rec, k);
  t.is(rec.filename, 'home_granite.pdf');
  t.is(rec.entity_type, 'home_policy');
  t.is(rec.parsing_method, 'text');
  t.is(rec.extracted_data.policy.policy_number, 'HO3-552-0193');
  t.is(rec.extracted_data.property.dwelling, 350000);
  t.false('_raw' in rec);
});

test('svc extract prints a readable summary without --json', async (t) => {
  const r = await svc(['extract', path.join(fixturesDir, 'coi_beta.pdf')]);
  t.is(r.code, 0, r.stderr);
  t.regex(r.stdout, /Certificate of Liability Insurance/);
  t.regex(r.stdout, /insurer A: Texas Frontier Insurance Company/);
});

test('svc extract on a bad file exits non-zero with the §7.2 code', async (t) => {
  const dir = tmp();
  const fake = path.join(dir, 'policy.pdf');
  fs.writeFileSync(fake, 'this is a text file wearing a .pdf name');
  const r = await svc(['extract', fake]);
  t.not(r.code, 0);
  t.regex(r.stderr, /^bad_request: /);
  const enc = path.join(dir, 'enc.pdf');
  fs.writeFileSync(enc, encryptedPdf());
  const r2 = await svc(['extract', enc, '--json']);
  t.not(r2.code, 0);
  t.is(JSON.parse(r2.stdout).error, 'extraction_failed');
  const r3 = await svc(['extract', fake, '--type', 'boat_policy']);
  t.is(r3.code, 2);
});

test('svc eval DIR --json scores fields against expected outputs', async (t) => {
  const dir = tmp();
  for (const base of ['auto_pinecrest', 'coi_alpha']) {
    fs.copyFileSync(path.join(fixturesDir, `${base}.pdf`), path.join(dir, `${base}.pdf`));
    fs.copyFileSync(path.join(fixturesDir, `${base}.expected.json`), path.join(dir, `${base}.expected.json`));
  }
  // A wrong expectation shows up as a miss.
  const exp = JSON.parse(fs.readFileSync(path.join(dir, 'auto_pinecrest.expected.json'), 'utf8'));
  exp.policy.premium = 1;
  fs.writeFileSync(path.join(dir, 'auto_pinecrest.expected.json'), JSON.stringify(exp));
  const r = await svc(['eval', dir, '--json']);
  t.is(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  t.is(out.documents, 2);
  t.is(out.fields['/policy/premium'].fn, 1);
  t.is(out.fields['/policy/premium'].fp, 1);
  t.is(out.fields['/certificate/coverages/*/policy_number'].recall, 1);
  const miss = out.documents_detail.find((d: { file: string }) => d.file === 'auto_pinecrest.pdf').misses;
  t.deepEqual(miss, [{ pointer: '/policy/premium', expected: 1, got: 2210 }]);
  // Human output has the table and the misses.
  const h = await svc(['eval', dir]);
  t.regex(h.stdout, /precision\s+recall/);
  t.regex(h.stdout, /auto_pinecrest\.pdf \/policy\/premium: expected 1 got 2210/);
});

test('svc eval --generated scores a fresh sample of randomised packets; a bad count is exit 2', async (t) => {
  const r = await svc(['eval', '--generated', '2', '--seed', '7', '--json']);
  t.is(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  t.is(out.generated, 2);
  t.is(out.documents_detail.length, 2);
  t.true(out.overall.tp > 20);
  t.is(out.fields['/policy/policy_number'].tp, 2);
  const bad = await svc(['eval', '--generated', '0']);
  t.is(bad.code, 2);
  t.regex(bad.stderr, /--generated takes a count/);
});

test('svc eval --generated --family certificate scores randomised non-ACORD certificates; an unknown family is exit 2', async (t) => {
  // Seeds 43 and 44 make born-digital certificates (no scan), so the run stays short.
  const r = await svc(['eval', '--generated', '2', '--family', 'certificate', '--seed', '43', '--json']);
  t.is(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  t.deepEqual(out.families, ['certificate']);
  t.is(out.documents_detail.length, 2);
  t.true(out.fields['/certificate/insured'].tp >= 1);
  t.true(out.fields['/certificate/coverages/*/policy_number'].tp >= 2);
  const bad = await svc(['eval', '--generated', '2', '--family', 'leases']);
  t.is(bad.code, 2);
  t.regex(bad.stderr, /--family takes one of packet, certificate, declarations, all or lease/);
});

test('svc eval --generated --family lease scores randomised residential lease pairs, false passes counted', async (t) => {
  const r = await svc(['eval', '--generated', '2', '--family', 'lease', '--seed', '3', '--json']);
  t.is(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  t.is(out.family, 'lease');
  t.is(out.pairs.length, 2);
  for (const p of out.pairs) {
    t.is(p.facts.total, 20, p.name);
    t.is(p.statuses.total, 15, p.name);
  }
  const h = await svc(['eval', '--generated', '2', '--family', 'lease', '--seed', '3']);
  t.regex(h.stdout, /^2 generated residential lease pairs, seed 3\n2 lease\/insurance pairs\nfacts +\d+\/40 right/);
  t.regex(h.stdout, /false passes \d+/);
});
