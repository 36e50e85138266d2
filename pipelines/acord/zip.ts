// The archive of filled ACORD forms: a zip written by yazl (streaming), one entry per PDF, with a fixed
// modification time so the same forms always give the same bytes.
import yazl from 'yazl';

/** Zip `entries` (name → bytes) in the given order; resolves with the archive's bytes. */
export function zipFiles(entries: { name: string; bytes: Uint8Array }[], mtime: Date): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const e of entries) zip.addBuffer(Buffer.from(e.bytes), e.name, { mtime, mode: 0o100644 });
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
    zip.outputStream.on('error', reject);
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
  });
}
