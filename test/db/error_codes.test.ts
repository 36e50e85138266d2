// Catalogue test: every five-character code a SQL function raises is listed in db/ERROR_CODES.md and mapped
// in http/errors.ts, with the same status in both, so a new code cannot reach a client as an unmapped 500.
import { readFileSync } from 'node:fs';
import test from 'ava';
import { sqlErrorStatus } from '../../http/errors.ts';
import { testDatabase, type TestDatabase } from '../helpers/db.ts';

let tdb: TestDatabase;
test.before(async () => {
  tdb = await testDatabase();
});
test.after.always(async () => tdb?.drop());

/** Codes in the table of db/ERROR_CODES.md with their documented status. */
function documentedCodes(): Map<string, number> {
  const md = readFileSync(new URL('../../db/ERROR_CODES.md', import.meta.url), 'utf8');
  const codes = new Map<string, number>();
  for (const m of md.matchAll(/^\|\s*([A-Z0-9]{5})\s*\|\s*(\d{3})\s*\|/gm)) codes.set(m[1], Number(m[2]));
  return codes;
}

/** Each errcode raised in a function of app_public or app_private, with the functions raising it. */
async function raisedCodes(): Promise<Map<string, string[]>> {
  const { rows } = await tdb.db.owner.query<{ fn: string; src: string }>(
    `select n.nspname || '.' || p.proname as fn, p.prosrc as src
       from pg_proc p join pg_namespace n on n.oid = p.pronamespace
      where n.nspname in ('app_public', 'app_private')`,
  );
  const raised = new Map<string, string[]>();
  for (const { fn, src } of rows) {
    for (const m of src.matchAll(/errcode\s*=\s*'([A-Za-z0-9]{5})'/gi)) raised.set(m[1], [...(raised.get(m[1]) ?? []), fn]);
  }
  return raised;
}

test('the catalogue parser and the raised-code scan find the codes we know', async (t) => {
  const documented = documentedCodes();
  const raised = await raisedCodes();
  // Guards against a parser that finds nothing and so passes everything.
  for (const code of ['NTFND', 'FORBD', 'KEYRV', 'NOURL', 'BADRF', 'STATE']) {
    t.true(documented.has(code), `${code} parsed from db/ERROR_CODES.md`);
    t.true(raised.has(code), `${code} found in pg_proc.prosrc`);
  }
});

test('every errcode raised in SQL is listed in db/ERROR_CODES.md and mapped in http/errors.ts with the same status', async (t) => {
  const documented = documentedCodes();
  const problems: string[] = [];
  for (const [code, fns] of await raisedCodes()) {
    const where = `raised by ${[...new Set(fns)].sort().join(', ')}`;
    if (!documented.has(code)) problems.push(`${code} (${where}) is missing from db/ERROR_CODES.md: add a table row "| ${code} | <status> | … |"`);
    if (sqlErrorStatus[code] === undefined) problems.push(`${code} (${where}) is not mapped in http/errors.ts: add it to sqlErrorStatus`);
    if (documented.has(code) && sqlErrorStatus[code] !== undefined && documented.get(code) !== sqlErrorStatus[code]) {
      problems.push(`${code}: db/ERROR_CODES.md says ${documented.get(code)}, http/errors.ts sqlErrorStatus says ${sqlErrorStatus[code]}`);
    }
  }
  t.deepEqual(problems, []);
});

test('every code of db/ERROR_CODES.md is mapped in http/errors.ts and every mapped code is documented', (t) => {
  const documented = documentedCodes();
  const problems: string[] = [];
  for (const code of documented.keys())
    if (sqlErrorStatus[code] === undefined) problems.push(`${code} is documented in db/ERROR_CODES.md but not mapped in http/errors.ts sqlErrorStatus`);
  for (const code of Object.keys(sqlErrorStatus))
    if (!documented.has(code)) problems.push(`${code} is mapped in http/errors.ts but missing from db/ERROR_CODES.md`);
  t.deepEqual(problems, []);
});
