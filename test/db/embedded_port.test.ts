// Two instances on one machine: when the configured embedded Postgres port is held by another process, the
// cluster starts on a free port and DATA_DIR remembers it; the cluster is reached through a Unix socket in its data
// directory (TCP alone when the path cannot hold one); upload folders of dead processes are swept.
import { mkdir, mkdtemp, readFile, readdir, rm, stat, utimes } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import pg from 'pg';
import { socketDirFor, startEmbedded } from '../../db/embedded.ts';
import { sweepUploadDirs } from '../../http/body.ts';
import { freePort } from '../helpers/ports.ts';

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
      // A second process (a CLI command beside the server) finds the running cluster, and its socket.
      const found = await startEmbedded({ dataDir, port: taken });
      t.false(found.startedHere);
      t.is(found.url(), cluster.url());
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

/** Where a connection through `url` comes from: null over a Unix socket, else the client's address. */
async function clientAddr(url: string): Promise<string | null> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<{ addr: string | null }>('select host(inet_client_addr()) as addr')).rows[0].addr;
  } finally {
    await c.end();
  }
}

test('the cluster is reached through a Unix socket in its own data directory; TCP on 127.0.0.1 stays open for psql', async (t) => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'svc-sock-'));
  try {
    const cluster = await startEmbedded({ dataDir, port: await freePort() });
    try {
      const url = new URL(cluster.url('postgres'));
      t.is(url.searchParams.get('host'), path.join(dataDir, 'pg'));
      t.true((await stat(path.join(dataDir, 'pg', `.s.PGSQL.${url.port}`))).isSocket());
      t.is(await clientAddr(cluster.url()), null, 'the server and worker connect through the socket');
      const creds = JSON.parse(await readFile(path.join(dataDir, 'pg-credentials.json'), 'utf8')) as { user: string; password: string };
      const tcp = `postgres://${creds.user}:${encodeURIComponent(creds.password)}@127.0.0.1:${url.port}/postgres`;
      t.is(await clientAddr(tcp), '127.0.0.1', "operators' psql over TCP, as the README shows");
    } finally {
      await cluster.stop();
    }
    // A data directory too deep for a socket path (107 bytes) or one that would need quoting: TCP alone.
    const deep = path.join(dataDir, 'x'.repeat(90));
    t.is(socketDirFor(path.join(deep, 'pg'), 5432), '');
    t.is(socketDirFor('/srv/svc data/pg', 5432), '');
    t.is(socketDirFor('/srv/svc/pg', 5432), '/srv/svc/pg');
    const tcpOnly = await startEmbedded({ dataDir: deep, port: await freePort() });
    try {
      t.is(new URL(tcpOnly.url()).hostname, '127.0.0.1');
      t.is(await clientAddr(tcpOnly.url()), '127.0.0.1');
    } finally {
      await tcpOnly.stop();
    }
  } finally {
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
