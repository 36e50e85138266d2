// Test helpers: small hand-built files for the error paths.
import path from 'node:path';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PDFDocument, StandardFonts } from 'pdf-lib';

export const fixturesDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../fixtures/policies');
export const fixture = (name: string) => new Uint8Array(fs.readFileSync(path.join(fixturesDir, name)));

/** A text PDF with one page per entry. */
export async function textPdf(pages: string[][]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const lines of pages) {
    const page = doc.addPage([612, 792]);
    lines.forEach((l, i) => page.drawText(l, { x: 50, y: 740 - i * 16, size: 11, font }));
  }
  return doc.save();
}

/** A PDF assembled from raw objects with a correct cross-reference table. */
export function rawPdf(objects: string[], trailerExtra = ''): Uint8Array {
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const off of offsets) out += `${String(off).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R ${trailerExtra} >>\nstartxref\n${xref}\n%%EOF\n`;
  return new Uint8Array(Buffer.from(out, 'latin1'));
}

/** A PDF encrypted with the standard handler and a user password we do not know. */
export function encryptedPdf(): Uint8Array {
  const hex = (n: number, seed: number) => Array.from({ length: n }, (_, i) => ((i * 37 + seed) % 256).toString(16).padStart(2, '0')).join('');
  return rawPdf(
    [
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>',
      `<< /Filter /Standard /V 1 /R 2 /O <${hex(32, 11)}> /U <${hex(32, 99)}> /P -4 >>`,
    ],
    `/Encrypt 4 0 R /ID [<${hex(16, 5)}> <${hex(16, 5)}>]`,
  );
}

/** A PNG header claiming a huge image (a decompression bomb needs no real pixels to be refused). */
export function pngHeader(width: number, height: number, extraChunks: Buffer[] = []): Uint8Array {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    return Buffer.concat([len, Buffer.from(type, 'latin1'), data, Buffer.alloc(4)]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 0;
  return new Uint8Array(
    Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      chunk('IHDR', ihdr),
      ...extraChunks,
      chunk('IDAT', Buffer.alloc(8)),
      chunk('IEND', Buffer.alloc(0)),
    ]),
  );
}

/** An animated PNG control chunk announcing `frames` frames. */
export function actl(frames: number): Buffer {
  const d = Buffer.alloc(8);
  d.writeUInt32BE(frames, 0);
  return (() => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(8);
    return Buffer.concat([len, Buffer.from('acTL', 'latin1'), d, Buffer.alloc(4)]);
  })();
}
