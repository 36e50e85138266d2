// `npm run -s db:schema`: migrate a throw-away embedded cluster and write what the migrations add up to into
// db/schema.sql (see db/schema_dump.ts). `--check` writes nothing and exits 1 (naming the file) when it differs.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startEmbedded } from '../db/embedded.ts';
import { migrate } from '../db/migrate.ts';
import { dumpSchema } from '../db/schema_dump.ts';
import { freePort } from '../test/helpers/ports.ts';

const file = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../db/schema.sql');

async function main(): Promise<number> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'svc-schema-'));
  const cluster = await startEmbedded({ dataDir, port: await freePort() });
  try {
    const pool = new pg.Pool({ connectionString: cluster.url(), max: 2 });
    pool.on('error', () => {});
    pool.on('connect', (c) => c.on('error', () => {}));
    try {
      await migrate(pool);
      const schema = await dumpSchema(pool);
      if (process.argv.includes('--check')) {
        const current = await readFile(file, 'utf8').catch(() => '');
        if (current === schema) return 0;
        process.stderr.write('db/schema.sql differs from the migrations: run `npm run -s db:schema`\n');
        return 1;
      }
      await writeFile(file, schema);
      process.stdout.write(`wrote ${path.relative(process.cwd(), file)}\n`);
      return 0;
    } finally {
      await pool.end();
    }
  } finally {
    await cluster.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
