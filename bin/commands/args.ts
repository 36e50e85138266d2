// What the `svc` commands share in reading their command line and ending: the arguments parsed against the
// command's options, the answer to a bad option (the message and the usage, exit 2) or to --help (the usage,
// exit 0), and the exit code of a failed document.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { apiErrorBody, fromDocumentError } from '../../http/errors.ts';
import { DocumentError } from '../../pipelines/documents/errors.ts';

/** The parsed arguments, or the exit code when the command ends here (a usage error, or --help). */
export function commandArgs<T extends ParseArgsConfig>(config: T, usage: string): ReturnType<typeof parseArgs<T>> | number {
  let args: ReturnType<typeof parseArgs<T>>;
  try {
    args = parseArgs(config);
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n${usage}\n`);
    return 2;
  }
  if ((args.values as { help?: boolean }).help) {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  return args;
}

/**
 * The exit code of an error a command's pipeline threw: a `DocumentError` writes its SPEC §7.2 body to stdout (when
 * `body`) and its code to stderr, exit 4 (payload_too_large) or 3; anything else is an internal error, exit 70.
 */
export function documentFailure(e: unknown, body: boolean): number {
  if (e instanceof DocumentError) {
    if (body) process.stdout.write(`${JSON.stringify(apiErrorBody(fromDocumentError(e)), null, 2)}\n`);
    process.stderr.write(`${e.code}: ${e.message}${e.details ? ` (${e.details})` : ''}\n`);
    return e.code === 'payload_too_large' ? 4 : 3;
  }
  process.stderr.write(`internal_error: ${(e as Error).stack ?? e}\n`);
  return 70;
}

/** Every file under a directory, recursively, in the order the directories list them. */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(p);
    }
  };
  walk(dir);
  return out;
}
