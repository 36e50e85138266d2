// One way in for uploaded documents (the extraction, analysis and hosted-form routes): the type comes from the
// bytes (sniff: type, size and pixel limits, never the declared type or name), with the SHA-256 digest, a blob key
// of its own (not of the content: a refused or abandoned upload's file can be deleted without asking whether
// another upload of the same bytes needs it) and a file name safe to store and show.
import { createHash, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { BlobStore } from '../lib/blobs.ts';
import { sniff, type Sniffed } from '../pipelines/documents/sniff.ts';
import type { UploadedFile } from './body.ts';

const EXT: Record<Sniffed['kind'], string> = { pdf: 'pdf', jpeg: 'jpg', png: 'png' };

/** An uploaded part read and typed by its bytes. */
export interface Upload {
  file: UploadedFile;
  bytes: Buffer;
  sniffed: Sniffed;
  sha256: string;
}

/** Read an uploaded part and type it by its bytes; throws DocumentError (pipelines/documents) for a refused file. */
export async function readUpload(file: UploadedFile, limits: { maxBytes: number; maxImagePixels: number }): Promise<Upload> {
  const bytes = await readFile(file.filepath);
  const sniffed = sniff(bytes, limits);
  return { file, bytes, sniffed, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/** Keep an upload in the blob store (S3 or disk, which every worker reads) under `<prefix>/<id>.<ext>`, streamed from the request's temp file. */
export async function keepUpload(blobs: BlobStore, u: Upload, prefix: 'documents' | 'uploads'): Promise<{ id: string; blobKey: string }> {
  const id = randomUUID();
  const blobKey = `${prefix}/${id}.${EXT[u.sniffed.kind]}`;
  await blobs.putAt(blobKey, { path: u.file.filepath }, u.sniffed.mime);
  return { id, blobKey };
}

const lastSegment = (name: string | null) => (name ?? '').split(/[\\/]/).pop()!;

/** A file name safe to store and show: the name's last path segment without control characters, at most 255 characters. */
export function safeFilename(name: string | null, fallback: string): string {
  const base = lastSegment(name)
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim();
  return (base || fallback).slice(0, 255);
}

/** A download name: safe, without the characters file systems refuse, with the extension of the type the bytes really are. */
export function downloadName(name: string | null, kind: Sniffed['kind'], fallback = 'upload'): string {
  const base = lastSegment(name)
    .replace(/[\u0000-\u001f\u007f"<>|?*:]+/g, '')
    .replace(/\.[A-Za-z0-9]{1,5}$/, '')
    .trim()
    .slice(0, 120);
  return `${base || fallback}.${EXT[kind]}`;
}
