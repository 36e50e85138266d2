// Two instances on one machine: when the configured embedded Postgres port is held by another process, the
// cluster starts on a free port and DATA_DIR remembers it; upload folders of dead processes are swept.
import { mkdir, mkdtemp, readFile, readdir, rm, utimes } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import pg from 'pg';
import { startEmbedded } from '../../db/embedded.ts';
import { sweepUploadDirs } from '../../http/body.ts';

test('a taken port makes the embedded cluster start on a free one, remembered in DATA_DIR', async (t) => {
  const blocker = net.createServer();
  await new Promise<void>((r) => blocker.listen({ port: 0, host: '127.0.0.1' }, () => r()));
  const taken = (blocker.address() as net.AddressInfo).port;
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'svc-port-'));
  try {
    const cluster = await startEmbedded({ dataDir, port: taken });
    const port = Number(new URL(cluster.url()).port);
    try {
      t.not(port, taken, 'not the port another process holds ("Address already in use" before)');
      t.is(Number((await readFile(path.join(dataDir, 'pg-port'), 'utf8')).trim()), port);
      const c = new pg.Client({ connectionString: cluster.url() });
      await c.connect();
      t.is((await c.query('select 1 as one')).rows[0].one, 1);
      await c.end();
    } finally {
      await cluster.stop();
    }
    // The next start on this DATA_DIR goes back to the remembered port.
    const again = await startEmbedded({ dataDir, port: taken });
    t.is(Number(new URL(again.url()).port), port);
    await again.stop();
  } finally {
    blocker.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});

test('upload folders of stopped processes are swept at start; a live process’s are kept', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'svc-sweep-'));
  try {
    const dead = 'svc-upload-2147483-abc'; // no such pid
    const mine = `svc-upload-${process.pid}-def`;
    const ancient = 'svc-upload-old'; // the earlier name, without a pid
    const other = 'something-else';
    for (const n of [dead, mine, ancient, other]) await mkdir(path.join(dir, n));
    await utimes(path.join(dir, ancient), new Date(Date.now() - 2 * 86_400_000), new Date(Date.now() - 2 * 86_400_000));
    const removed = await sweepUploadDirs(dir);
    t.deepEqual(removed.sort(), [dead, ancient].sort());
    t.deepEqual((await readdir(dir)).sort(), [mine, other].sort());
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
