// What the `svc` commands share in reading their command line: the arguments parsed against the command's
// options, and the answer to a bad option (the message and the usage, exit 2) or to --help (the usage, exit 0).
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';

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
