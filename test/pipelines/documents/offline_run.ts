// Child process of the offline test: OCR a photo and a scanned PDF with the network blocked.
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { readDocument, closeDocumentPools, langDataDir } from '../../../pipelines/documents/index.ts';

const dir = process.argv[2];
// Canary: proves the network guard is active inside worker threads too (reported as "canary").
await new Promise<void>((resolve) => {
  const w = new Worker(new URL('./canary_worker.mjs', import.meta.url));
  w.on('exit', () => resolve());
});
const photo = await readDocument(new Uint8Array(fs.readFileSync(path.join(dir, 'renters_maple_photo.png'))), {
  ocr: { engine: { kind: 'tesseract.js', workers: 1 } },
});
await closeDocumentPools();
process.stdout.write(
  JSON.stringify({
    method: photo.method,
    status: photo.status,
    text: photo.pages[0].text,
    langDataDir: langDataDir(),
    cwdFiles: fs.readdirSync(process.cwd()),
  }),
);
