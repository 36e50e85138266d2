// `svc analyze --lease FILE --insurance FILE [--as-of YYYY-MM-DD]`: run the lease checker locally (no server,
// no database) and print the SPEC §2.8 result as JSON. A refused file exits non-zero with its §7.2 code.
import fs from 'node:fs';
import { commandArgs, documentFailure } from './args.ts';
import { analyzePair } from '../../pipelines/lease/index.ts';
import { closeDocumentPools } from '../../pipelines/documents/index.ts';
import { engineOptionsFromConfig } from './extract.ts';

const usage = `usage: svc analyze --lease FILE --insurance FILE [--as-of YYYY-MM-DD] [--raw]
  --as-of  the day policy status and period are judged on (default today, UTC)
  --raw    include _raw (the complete extracted data of both documents)`;

/** Today as YYYY-MM-DD (UTC). */
export const today = () => new Date().toISOString().slice(0, 10);

/** Entry point for `svc analyze`; returns the exit code. */
export async function run(argv: string[]): Promise<number> {
  const args = commandArgs(
    {
      args: argv,
      options: {
        lease: { type: 'string' },
        insurance: { type: 'string' },
        'as-of': { type: 'string' },
        raw: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    },
    usage,
  );
  if (typeof args === 'number') return args;
  const { lease, insurance } = args.values;
  if (!lease || !insurance) {
    process.stderr.write(`bad_request: both --lease and --insurance are required\n${usage}\n`);
    return 2;
  }
  const asOf = args.values['as-of'] ?? today();
  if (!/^\d{4}-\d{2}-\d{2}$/.test(asOf) || Number.isNaN(Date.parse(asOf))) {
    process.stderr.write(`bad_request: --as-of must be a date written YYYY-MM-DD\n`);
    return 2;
  }
  const files: Uint8Array[] = [];
  for (const f of [lease, insurance]) {
    try {
      files.push(new Uint8Array(fs.readFileSync(f)));
    } catch (e) {
      process.stderr.write(`bad_request: cannot read ${f}: ${(e as Error).message}\n`);
      return 2;
    }
  }
  try {
    const r = await analyzePair(files[0], files[1], { asOf, read: engineOptionsFromConfig().read });
    const { _raw, ...rest } = r;
    process.stdout.write(`${JSON.stringify(args.values.raw ? r : rest, null, 2)}\n`);
    void _raw;
    return 0;
  } catch (e) {
    return documentFailure(e, true);
  } finally {
    await closeDocumentPools();
  }
}
