// The native `tesseract` command as the OCR engine: the same language data, one PGM in, TSV out.
import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { DocumentError } from '../errors.ts';
import { langDataDir } from './options.ts';

const execFileP = promisify(execFile);

let cliTessdata: string | undefined;
/** The same language data as tesseract.js, unpacked once into a temporary directory for the native command. */
export function cliTessdataDir(): string {
  if (cliTessdata) return cliTessdata;
  const dir = path.join(os.tmpdir(), 'svc-tessdata-best-int');
  const file = path.join(dir, 'eng.traineddata');
  if (!fs.existsSync(file)) {
    fs.mkdirSync(dir, { recursive: true });
    const tmp = `${file}.${process.pid}`;
    fs.writeFileSync(tmp, zlib.gunzipSync(fs.readFileSync(path.join(langDataDir(), 'eng.traineddata.gz'))));
    fs.renameSync(tmp, file);
  }
  return (cliTessdata = dir);
}

/** The native command's arguments: TSV of the words on stdout, the shipped best_int model, LSTM only. */
export function cliArgs(input: string, psm: number): string[] {
  return [
    input,
    'stdout',
    '--tessdata-dir',
    cliTessdataDir(),
    '-l',
    'eng',
    '--oem',
    '1',
    '--psm',
    String(psm),
    '-c',
    'tessedit_create_tsv=1',
    '-c',
    'tessedit_create_txt=0',
    '-c',
    'user_defined_dpi=300',
  ];
}

/** The native command's TSV for one PGM image. */
export async function cliTsv(pgm: Buffer, bin: string, searchPath: string | undefined, psm: number, timeoutMs: number): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-ocr-'));
  try {
    const input = path.join(dir, 'page.pgm');
    fs.writeFileSync(input, pgm);
    let stdout: string;
    try {
      ({ stdout } = await execFileP(bin, cliArgs(input, psm), {
        timeout: timeoutMs,
        maxBuffer: 64 * 1024 * 1024,
        // Only what the command needs: nothing of this process's environment leaks into it.
        env: { OMP_THREAD_LIMIT: '1', ...(searchPath ? { PATH: searchPath } : {}) },
      }));
    } catch (e) {
      const err = e as NodeJS.ErrnoException & { killed?: boolean };
      if (err.code === 'ENOENT') throw new DocumentError('internal_error', 'ocr_unavailable', `the OCR command "${bin}" is not installed`);
      if (err.killed) throw new DocumentError('extraction_failed', 'ocr_timeout', `OCR of a page took longer than ${timeoutMs} ms`);
      throw new DocumentError('extraction_failed', 'ocr_failed', 'the OCR command failed', err.message);
    }
    return stdout;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
