// Lease checker: POST /api/analyze latency p50/p99 over HTTP (server + worker chain, in one process here) for a
// text pair and a scanned pair, beside the peer measured in the same run: the extraction engine of
// `svc extract` reading the same two files in process (and the checker's own in-process path, `svc analyze`).
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger, setLogLevel } from '../lib/log.ts';
import { createApp } from '../http/app.ts';
import { startWorker } from '../tasks/index.ts';
import { extractDocument } from '../pipelines/extraction/index.ts';
import { analyzePair, readForAnalysis, insuranceStage } from '../pipelines/lease/index.ts';
import { closeDocumentPools } from '../pipelines/documents/index.ts';
import { benchDeps, fmt, localPort, percentile, seedAgency } from './lib.ts';
import type { BenchContext } from './lib.ts';

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/lease');
const file = (f: string) => new Uint8Array(fs.readFileSync(path.join(dir, f)));

async function timed(n: number, op: () => Promise<unknown>): Promise<{ p50: number; p99: number; n: number }> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await op();
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  return { p50: percentile(ms, 50), p99: percentile(ms, 99), n };
}

const line = (name: string, r: { p50: number; p99: number; n: number }) =>
  process.stdout.write(`${name.padEnd(62)} p50 ${fmt(r.p50, 0).padStart(6)} ms   p99 ${fmt(r.p99, 0).padStart(6)} ms   (n=${r.n})\n`);

/** A lease of `pages` text pages like the EDGAR exhibits (Courier 9 pt, 66 lines a page), built here, not downloaded. */
async function longLease(pages: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Courier);
  const para = (n: number) =>
    `${n}. Tenant shall keep the Premises in good order and repair, ordinary wear and tear excepted, and shall comply with all laws, rules and regulations applicable to its use of the Premises; Landlord may enter the Premises upon reasonable notice to inspect or to make repairs that Tenant has failed to make within thirty (30) days after notice.`;
  const lines: string[] = [
    'LEASE AGREEMENT BETWEEN',
    'HARBOR POINT HOLDINGS, L.L.C.,',
    'AS LANDLORD, AND',
    'QUILL ROBOTICS, INC.,',
    'AS TENANT',
    'BASIC LEASE INFORMATION',
    'Landlord:',
    'As listed on the cover page',
    'Premises:',
    'Suite 400 of the building whose street address is 77 Wharf Street, Portland, Maine 04101.',
    'Commencement Date:',
    'The later of (a) July 1, 2026, and (b) 120 days after Landlord delivers the Premises.',
  ];
  for (let n = 1; lines.length < pages * 66; n++) {
    if (n === 400)
      lines.push(
        '9.1 Tenant shall maintain commercial general liability insurance of not less than $1,000,000 per occurrence and',
        '$2,000,000 in the aggregate, naming Landlord as additional insured, and shall deliver certificates of insurance.',
      );
    const words = para(n).split(' ');
    let cur = '';
    for (const w of words) {
      if ((cur + ' ' + w).length > 80) {
        lines.push(cur);
        cur = w;
      } else cur = cur ? `${cur} ${w}` : w;
    }
    lines.push(cur);
  }
  for (let p = 0; p < pages; p++) {
    const page = doc.addPage([612, 792]);
    lines.slice(p * 66, p * 66 + 66).forEach((l, i) => page.drawText(l, { x: 40, y: 760 - i * 10.6, size: 9, font }));
    page.drawText(`Page ${p + 1}`, { x: 290, y: 20, size: 9, font });
  }
  return doc.save();
}

/** A 100-page text lease in process beside pdftotext -layout on the same file and the insurance document's own extraction. */
async function longLeaseRun(ctx: BenchContext): Promise<void> {
  const lease = await longLease(100);
  const insurance = file('com_compliant.insurance.pdf');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-lease-'));
  try {
    const leaseFile = path.join(tmp, 'lease.pdf');
    fs.writeFileSync(leaseFile, lease);
    const n = ctx.quick ? 3 : 10;
    const pdftotext = async () => {
      const r = spawnSync('pdftotext', ['-layout', leaseFile, '-'], { maxBuffer: 64 << 20 });
      if (r.status !== 0) throw new Error(`pdftotext: ${r.error?.message ?? r.stderr}`);
    };
    const insuranceOnly = async () => insuranceStage(await readForAnalysis(insurance, {}, 'insurance'));
    const ours = () => analyzePair(lease, insurance, { asOf: '2026-03-10' });
    await ours();
    await pdftotext();
    process.stdout.write('\n100-page text lease (generated, Courier 9 pt) + certificate PDF, in process\n');
    const a = await timed(n, ours);
    const b = await timed(n, pdftotext);
    const c = await timed(n, insuranceOnly);
    line('  svc analyze path (lease facts + insurance + 15 checks)', a);
    line('  peer: pdftotext -layout on the lease', b);
    line("  peer: the insurance document's own extraction", c);
    process.stdout.write(`  ratio p50: analyze / (pdftotext + insurance) = ${(a.p50 / (b.p50 + c.p50)).toFixed(2)} (target <= 3)\n`);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

export async function run(ctx: BenchContext): Promise<void> {
  setLogLevel('silent');
  await longLeaseRun(ctx);
  const { cfg, secretKey, blobs } = benchDeps(ctx, { WORKER_CONCURRENCY: '2' });
  const log = createLogger();
  const app = createApp({ db: ctx.db, cfg, log, blobs, secretKey });
  const server = app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${await localPort(server)}`;
  const runner = await startWorker(ctx.db.owner, { concurrency: 2, log, deps: { cfg, log, secretKey, blobs } });
  try {
    const seed = await seedAgency(ctx.db, 'bench-lease');
    const tok = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: 'oc_bench-lease', client_secret: 'secret-bench-lease' }),
    });
    const oauth = ((await tok.json()) as { access_token: string }).access_token;
    await fetch(`${base}/v1/agencies/${seed.agencyId}/plan`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${oauth}`, 'content-type': 'application/json' },
      body: JSON.stringify({ plan: 'enterprise', per_minute: 100000, per_day: 1000000 }),
    });
    const k = await fetch(`${base}/v1/agencies/${seed.agencyId}/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${seed.agentToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench', mode: 'test', permissions: 'admin' }),
    });
    const key = ((await k.json()) as { data: { key: string } }).data.key;

    const pairs = [
      {
        label: 'text pair (3-page lease PDF + certificate PDF)',
        lease: 'com_compliant.lease.pdf',
        insurance: 'com_compliant.insurance.pdf',
        asOf: '2026-03-10',
        n: ctx.quick ? 10 : 40,
      },
      {
        label: 'scanned pair (scanned lease PDF + declarations PDF)',
        lease: 'res_scanned_lease.lease.pdf',
        insurance: 'res_scanned_lease.insurance.pdf',
        asOf: '2026-02-15',
        n: ctx.quick ? 2 : 6,
      },
    ];
    for (const p of pairs) {
      const lease = file(p.lease);
      const insurance = file(p.insurance);
      const post = async () => {
        const form = new FormData();
        form.append('lease', new Blob([lease], { type: 'application/pdf' }), p.lease);
        form.append('insurance', new Blob([insurance], { type: 'application/pdf' }), p.insurance);
        form.append('as_of', p.asOf);
        const r = await fetch(`${base}/api/analyze`, { method: 'POST', headers: { 'x-api-key': key }, body: form });
        const body = (await r.json()) as { id: string; status: string };
        if (r.status === 202) {
          // Past the deadline (a loaded machine): the time until GET shows the result counts.
          for (;;) {
            await new Promise((res) => setTimeout(res, 50));
            const g = (await (await fetch(`${base}/api/analyses/${body.id}`, { headers: { 'x-api-key': key } })).json()) as { status: string };
            if (g.status === 'completed') return;
            if (g.status === 'failed') throw new Error('analysis failed');
          }
        }
        if (r.status !== 200) throw new Error(`POST /api/analyze: ${r.status}`);
      };
      await post(); // warm-up: pools, prepared statements, OCR workers
      process.stdout.write(`\n${p.label}\n`);
      line('  POST /api/analyze over HTTP (server + task chain)', await timed(p.n, post));
      line('  peer: svc extract engine, both files in process', await timed(p.n, () => Promise.all([extractDocument(lease), extractDocument(insurance)])));
      line('  svc analyze path, in process (no HTTP, no queue)', await timed(p.n, () => analyzePair(lease, insurance, { asOf: p.asOf })));
    }
  } finally {
    await runner.stop();
    server.close();
    server.closeAllConnections();
    await closeDocumentPools();
  }
}
