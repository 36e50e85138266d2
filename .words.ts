import fs from 'node:fs';
import { readDocument, closeDocumentPools } from '/work/main/pipelines/documents/index.ts';
const bytes = new Uint8Array(fs.readFileSync(process.argv[2]));
const pages = process.argv.slice(3).map(Number);
const doc = await readDocument(bytes, {});
for (const p of doc.pages) {
  if (!pages.includes(p.page)) continue;
  console.log('=== page', p.page, p.method ?? '', JSON.stringify((p as any).repairs ?? []));
  console.log(p.text);
}
await closeDocumentPools();
