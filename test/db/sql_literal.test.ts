// The outbox writes its batches as a quoted literal of a simple-protocol query (db/queries/events.ts `literal`):
// it must quote exactly as pg's own escapeLiteral does, and Postgres must read back the very string.
import test from 'ava';
import fc from 'fast-check';
import pg from 'pg';
import { literal } from '../../db/queries/events.ts';
import { testDatabase, type TestDatabase } from '../helpers/db.ts';

let tdb: TestDatabase;
test.before(async () => {
  tdb = await testDatabase();
});
test.after.always(async () => tdb?.drop());

/** Strings a JSON body can hold (no NUL, which Postgres text refuses), weighted toward quotes and backslashes. */
const text = fc
  .array(fc.oneof(fc.constantFrom("'", '\\', "''", "\\'", '"', 'E', '$$', '\n'), fc.string({ unit: 'binary' })), { maxLength: 12 })
  .map((parts) => parts.join('').replace(/\u0000/g, ''));

test('literal quotes every string as pg.escapeLiteral does', (t) => {
  const client = new pg.Client();
  fc.assert(
    fc.property(text, (s) => literal(s) === client.escapeLiteral(s)),
    { numRuns: 2000 },
  );
  t.pass();
});

test('Postgres reads back the string literal quoted', async (t) => {
  const samples = fc.sample(text, 300).concat(["it's", 'C:\\path\\', "\\'; drop table x; --", JSON.stringify({ a: "o'\\x" })]);
  const c = await tdb.db.owner.connect();
  try {
    for (const s of samples) {
      const { rows } = await c.query<{ v: string }>(`select ${literal(s)}::text as v`);
      t.is(rows[0]!.v, s);
    }
  } finally {
    c.release();
  }
});
