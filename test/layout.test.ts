// Catalogue test of the layout DESIGN.md describes: SQL only in db/, no route file importing another route
// file, pipelines free of db/, http/ and process.env, process.env read only by lib/config.ts. A new file
// that breaks a rule fails here with its name, whoever adds it.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(path.join(root, dir))) {
    const rel = path.join(dir, name);
    if (statSync(path.join(root, rel)).isDirectory()) out.push(...sources(rel));
    else if (/\.(ts|mts|mjs|js)$/.test(name)) out.push(rel);
  }
  return out;
}

const read = (rel: string) => readFileSync(path.join(root, rel), 'utf8');
/** Relative import specifiers of a module, resolved against the repository root. */
const imports = (rel: string) =>
  [...read(rel).matchAll(/\bfrom\s+'(\.{1,2}\/[^']+)'|\bimport\(\s*'(\.{1,2}\/[^']+)'\s*\)/g)].map((m) => path.join(path.dirname(rel), m[1] ?? m[2]));

// A statement keyword followed by what makes it SQL (a schema-qualified name or a clause of one).
const sql =
  /\b(select\s+[\s\S]{0,200}?\bfrom\s+(app_public|app_private|graphile_worker)\.|select\s+(app_public|app_private|graphile_worker)\.|insert\s+into\s|update\s+(app_public|app_private)\.|delete\s+from\s)/i;

test('the rules below see the files they are about', (t) => {
  t.true(sources('http/routes').length > 5);
  t.true(sources('tasks').length > 3);
  t.true(sources('pipelines').length > 10);
  t.regex('select * from app_public.forms where id = $1', sql, 'the SQL pattern matches a statement');
  t.regex('insert into app_public.forms (name) values ($1)', sql);
  t.notRegex('Select a form from the list', sql);
});

test('no SQL statement outside db/ in http/, tasks/ and pipelines/ (statements go in db/queries/)', (t) => {
  const offenders = ['http', 'tasks', 'pipelines'].flatMap(sources).filter((f) => sql.test(read(f)));
  t.deepEqual(offenders, [], 'move these statements into db/queries/<resource>.ts');
});

test('a route file imports nothing from another route file (shared helpers live in http/ or lib/)', (t) => {
  const offenders = sources('http/routes').flatMap((f) =>
    imports(f)
      .filter((i) => i.startsWith('http/routes/'))
      .map((i) => `${f} → ${i}`),
  );
  t.deepEqual(offenders, []);
});

test('pipelines import neither db/ nor http/ nor tasks/, and read no process.env', (t) => {
  const offenders = sources('pipelines').flatMap((f) => [
    ...imports(f)
      .filter((i) => /^(db|http|tasks)\//.test(i))
      .map((i) => `${f} imports ${i}`),
    ...(/process\.env/.test(read(f)) ? [`${f} reads process.env`] : []),
  ]);
  t.deepEqual(offenders, []);
});

test('db/ never imports http/ or tasks/', (t) => {
  const offenders = sources('db').flatMap((f) =>
    imports(f)
      .filter((i) => /^(http|tasks)\//.test(i))
      .map((i) => `${f} imports ${i}`),
  );
  t.deepEqual(offenders, []);
});

test('only lib/config.ts reads process.env in the service code', (t) => {
  const offenders = ['bin', 'db', 'http', 'lib', 'pipelines', 'tasks', 'prompts']
    .flatMap(sources)
    .filter((f) => f !== path.join('lib', 'config.ts') && /process\.env/.test(read(f)));
  t.deepEqual(offenders, []);
});
