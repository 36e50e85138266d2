// Policy extraction through the service: HTTP upload → the worker's task chain (2 workers, as on 2 cores) →
// signed client-submission received by a local webhook receiver. Prints
//  - one 1-page text PDF at a time on the idle service: upload → webhook p50/p99 (target p50 ≤ 1.5 s)
//  - extraction jobs per minute for text PDFs and for scanned PDFs, and upload → webhook latency p50/p99
//  - text documents' latency while scans are queued ahead of them (OCR pages run at a lower priority)
//  - another agency's text uploads while one agency's burst of scans and decompression bombs waits (each agency's
//    own queues), beside that backlog, and the process's peak memory meanwhile (target p50 ≤ 2 s, under 1 GB)
//  - peer: the same documents through extractDocument() in process (no HTTP, queue or database) in this run
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import type { Server } from 'node:http';
import { PDFDocument, PDFName } from 'pdf-lib';
import { withIdentity } from '../db/pool.ts';
import { createApp } from '../http/app.ts';
import { blobStoreFromConfig } from '../lib/blobs.ts';
import { parseConfig } from '../lib/config.ts';
import { encryptSecret } from '../lib/crypto.ts';
import { createLogger, setLogLevel } from '../lib/log.ts';
import { hashToken } from '../lib/secrets.ts';
import { closeDocumentPools } from '../pipelines/documents/index.ts';
import { extractDocument } from '../pipelines/extraction/index.ts';
import { newSigningSecret } from '../pipelines/webhooks/sign.ts';
import { engineOptions } from '../tasks/context.ts';
import { startWorker } from '../tasks/index.ts';
import { fmt, jsonReceiver, localPort, percentile, seedAgency } from './lib.ts';
import type { BenchContext } from './lib.ts';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/policies');
const read = (f: string) => fs.readFileSync(path.join(fixtures, f));

/**
 * A PDF of `pages` pages (one by default), each page's content `streams` deflated streams of `mib` MiB of spaces: a few
 * hundred KB that pdf.js would inflate to `pages × streams × mib` MiB. Under the decode limits (16 MiB of content a
 * page, 128 MiB of content a document) it is read, and costs what the service lets one document cost; over them it
 * is refused before pdf.js opens it.
 */
export async function bombPdf(streams: number, mib: number, pages = 1): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const data = zlib.deflateSync(Buffer.alloc(mib * 2 ** 20, 0x20), { level: 9 });
  for (let p = 0; p < pages; p++) {
    const page = doc.addPage([612, 792]);
    const refs = Array.from({ length: streams }, () => doc.context.register(doc.context.stream(data, { Filter: 'FlateDecode' })));
    page.node.set(PDFName.of('Contents'), doc.context.obj(refs));
  }
  return Buffer.from(await doc.save());
}

export async function run(ctx: BenchContext): Promise<void> {
  setLogLevel('silent');
  const { db } = ctx;
  const step = (m: string) => process.env.BENCH_DEBUG && process.stderr.write(`${m}\n`);
  const arrivals = new Map<string, number>();
  let onArrival = () => {};
  const { server: receiver, url: hookUrl } = await jsonReceiver((body) => {
    const link = (body as { data: { document_link: string } }).data.document_link;
    const doc = /documents\/([0-9a-f-]{36})\./.exec(link)?.[1];
    if (doc && !arrivals.has(doc)) arrivals.set(doc, performance.now());
    onArrival();
  });

  const cfg0 = parseConfig({
    DATABASE_URL: ctx.url,
    DATA_DIR: ctx.dataDir,
    WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
    LOG_LEVEL: 'silent',
    OCR_ENGINE: process.env.OCR_ENGINE ?? 'tesseract.js',
  });
  const log = createLogger();
  const secretKey = randomBytes(32);
  const blobs = blobStoreFromConfig(cfg0);
  const app = createApp({ db, cfg: cfg0, log, blobs, secretKey });
  const server: Server = app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${await localPort(server)}`;
  const cfg = { ...cfg0, publicUrl: base, filesUrl: base };
  step('app listening');
  const runner = await startWorker(db.owner, { concurrency: 2, log, deps: { cfg, log, secretKey, blobs }, pollInterval: 200 });

  /** An agency with an API key and its client-submission endpoint at the receiver. */
  const seedWithHook = async (name: string) => {
    const { agencyId, agentId, oauthClientId } = await seedAgency(db, name);
    const apiKey = `svc_test_${randomBytes(20).toString('hex')}`;
    await withIdentity(db, { role: 'owner', agencyId, agentId }, (c) =>
      c.query(`select app_public.create_api_key($1, 'bench', 'test', 'admin', $2, 'svc_test_bnch', 'bnch')`, [agencyId, hashToken(apiKey)]),
    );
    await withIdentity(db, { role: 'oauth_client', oauthClientId }, (c) =>
      c.query(`select app_public.set_agency_plan($1, 'enterprise', 100000, 1000000)`, [agencyId]),
    );
    await db.owner.query(
      `insert into app_public.webhook_endpoints (agency_id, kind, topic, staging_url, secret_ciphertext) values ($1, 'topic', 'client-submission', $2, $3)`,
      [agencyId, hookUrl, encryptSecret(secretKey, newSigningSecret())],
    );
    return { agentId, apiKey };
  };
  const { agentId, apiKey } = await seedWithHook(`bench-extract-${Date.now()}`);

  step('seeded');
  const uploadedAt = new Map<string, number>();
  async function uploadOne(bytes: Buffer, name: string, as = { agentId, apiKey }): Promise<string> {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(bytes)]), name);
    const t0 = performance.now();
    const r = await fetch(`${base}/api/v1/${as.agentId}/policy/extract`, { method: 'POST', headers: { 'x-api-key': as.apiKey }, body: form });
    const body = (await r.json()) as { document_id: string; parsing_status: string };
    if (r.status !== 200) throw new Error(`upload failed: ${JSON.stringify(body)}`);
    uploadedAt.set(body.document_id, t0);
    return body.document_id;
  }
  const waitAll = (ids: string[]) =>
    new Promise<void>((resolve) => {
      const check = () => ids.every((id) => arrivals.has(id)) && resolve();
      onArrival = check;
      check();
    });
  const latencies = (ids: string[]) => ids.map((id) => arrivals.get(id)! - uploadedAt.get(id)!).sort((a, b) => a - b);
  const line = (label: string, ids: string[], seconds: number) => {
    const l = latencies(ids);
    process.stdout.write(
      `${label.padEnd(58)} ${fmt((ids.length / seconds) * 60, 1).padStart(7)} jobs/min   upload→webhook p50 ${fmt(percentile(l, 50) / 1000, 2)} s   p99 ${fmt(percentile(l, 99) / 1000, 2)} s\n`,
    );
  };

  const texts = ['auto_acme_mutual.pdf', 'home_granite.pdf', 'cgl_keystone.pdf', 'flood_gulf.pdf', 'umbrella_crest.pdf', 'renters_maple.pdf'];
  const scans = ['auto_acme_mutual_scan.pdf', 'home_granite_scan.pdf', 'cgl_keystone_scan.pdf', 'coi_alpha_scan.pdf'];
  const nText = ctx.quick ? 12 : 36;
  const nScan = ctx.quick ? 4 : 8;

  // 0. One 1-page text PDF at a time on the idle service.
  const single: string[] = [];
  for (let i = 0; i < (ctx.quick ? 5 : 15); i++) {
    const id = await uploadOne(read('auto_acme_mutual.pdf'), `one${i}.pdf`);
    single.push(id);
    await waitAll([id]);
  }
  const ls = latencies(single);
  process.stdout.write(
    `${`one 1-page text PDF at a time, idle service (${single.length})`.padEnd(58)} upload→webhook p50 ${fmt(percentile(ls, 50) / 1000, 2)} s   p99 ${fmt(percentile(ls, 99) / 1000, 2)} s   (target p50 ≤ 1.5 s)\n`,
  );

  // 1. Text PDFs alone.
  let t0 = performance.now();
  const textIds: string[] = [];
  for (let i = 0; i < nText; i++) textIds.push(await uploadOne(read(texts[i % texts.length]), `t${i}.pdf`));
  await waitAll(textIds);
  const textSeconds = (performance.now() - t0) / 1000;
  line(`text PDFs through the service (${nText}, 2 workers)`, textIds, textSeconds);

  // 2. Scanned PDFs alone.
  t0 = performance.now();
  const scanIds: string[] = [];
  for (let i = 0; i < nScan; i++) scanIds.push(await uploadOne(read(scans[i % scans.length]), `s${i}.pdf`));
  await waitAll(scanIds);
  line(`scanned PDFs through the service (${nScan}, 2 workers, ${cfg.OCR_ENGINE})`, scanIds, (performance.now() - t0) / 1000);

  // 3. Text documents uploaded right behind a queue of scans.
  const behind: string[] = [];
  const queuedScans: string[] = [];
  for (let i = 0; i < nScan; i++) queuedScans.push(await uploadOne(read(scans[i % scans.length]), `q${i}.pdf`));
  for (let i = 0; i < Math.min(nText, 6); i++) behind.push(await uploadOne(read(texts[i % texts.length]), `b${i}.pdf`));
  await waitAll(behind);
  const lb = latencies(behind);
  const la = latencies(textIds);
  process.stdout.write(
    `${`text PDFs uploaded behind ${nScan} queued scans (${behind.length})`.padEnd(58)} upload→webhook p50 ${fmt(percentile(lb, 50) / 1000, 2)} s   p99 ${fmt(percentile(lb, 99) / 1000, 2)} s   (alone: p50 ${fmt(percentile(la, 50) / 1000, 2)} s)\n`,
  );
  await waitAll(queuedScans);

  // 4. Another agency's one-page text uploads, one after another, while this agency's burst of scans and four
  // decompression bombs waits: two over the decode limits (200 MiB in one stream, 12 × 60 MiB), refused before
  // pdf.js opens them, and two just under them (15 MiB on one page; 8 pages of 15 × 1 MiB, 120 MiB in all), read and
  // rendered for OCR.
  const other = await seedWithHook(`bench-extract-other-${Date.now()}`);
  const nBurst = ctx.quick ? 10 : 20;
  const bombs = [await bombPdf(1, 200), await bombPdf(1, 15), await bombPdf(15, 1, 8), await bombPdf(12, 60)];
  let peakRss = process.memoryUsage.rss();
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 200);
  const burst: string[] = [];
  const bombIds: string[] = [];
  for (let i = 0; i < nBurst; i++) {
    burst.push(await uploadOne(read(scans[i % scans.length]), `burst${i}.pdf`));
    if (i % Math.floor(nBurst / bombs.length) === 0 && bombIds.length < bombs.length)
      bombIds.push(await uploadOne(bombs[bombIds.length], `bomb${bombIds.length}.pdf`));
  }
  const neighbour: string[] = [];
  const backlog: number[] = [];
  for (let i = 0; i < (ctx.quick ? 3 : 6); i++) {
    const id = await uploadOne(read('auto_acme_mutual.pdf'), `n${i}.pdf`, other);
    neighbour.push(id);
    await waitAll([id]);
    backlog.push(burst.filter((b) => !arrivals.has(b)).length);
  }
  const ln = latencies(neighbour);
  process.stdout.write(
    `${`another agency's 1-page text PDFs beside ${nBurst} scans + ${bombIds.length} bombs (${neighbour.length})`.padEnd(58)} upload→webhook p50 ${fmt(percentile(ln, 50) / 1000, 2)} s   p99 ${fmt(percentile(ln, 99) / 1000, 2)} s   (alone: p50 ${fmt(percentile(la, 50) / 1000, 2)} s; the burst's scans not yet delivered: ${backlog.join(', ')} of ${nBurst})\n`,
  );
  await waitAll(burst);
  // A failed document sends no webhook: the bombs are followed in the database.
  const bombStatus = async () =>
    (
      await db.owner.query<{ status: string; error_details: string | null }>(
        `select status, error_details from app_public.extractions where document_id = any($1::uuid[])`,
        [bombIds],
      )
    ).rows;
  while ((await bombStatus()).some((r) => r.status === 'queued' || r.status === 'processing')) await new Promise((r) => setTimeout(r, 200));
  clearInterval(sampler);
  process.stdout.write(
    `${'peak RSS of this process (API, worker, PDF and OCR workers) during the burst'.padEnd(58)} ${fmt(peakRss / 2 ** 20, 0)} MB (target under 1024 MB)\n`,
  );
  process.stdout.write(
    `${'  the bombs ended'.padEnd(58)} ${(await bombStatus()).map((r) => `${r.status}${r.error_details ? ` (${r.error_details.slice(0, 60)})` : ''}`).join('; ')}\n`,
  );

  // Peer: the engine in process on the same files, one at a time per "worker", no HTTP, queue or database.
  const opts = engineOptions(cfg);
  const peer = async (files: string[], n: number) => {
    const start = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 2 }, async () => {
        while (next < n) {
          const f = files[next++ % files.length];
          await extractDocument(new Uint8Array(read(f)), { read: opts.read });
        }
      }),
    );
    return (n / ((performance.now() - start) / 1000)) * 60;
  };
  const peerText = await peer(texts, nText);
  process.stdout.write(`${'peer: extractDocument() in process, text PDFs (2 at a time)'.padEnd(58)} ${fmt(peerText, 1).padStart(7)} jobs/min\n`);
  const peerScan = await peer(scans, nScan);
  process.stdout.write(`${'peer: extractDocument() in process, scanned PDFs (2 at a time)'.padEnd(58)} ${fmt(peerScan, 1).padStart(7)} jobs/min\n`);
  process.stdout.write(`the service runs text documents at ${fmt((((textIds.length / textSeconds) * 60) / peerText) * 100)}% of the in-process rate\n`);

  await runner.stop();
  await new Promise<void>((r) => server.close(() => r()));
  server.closeAllConnections();
  receiver.close();
  await closeDocumentPools();
}
