// A real webhook receiver on 127.0.0.1 that records the raw bytes of every request and answers as scripted.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
  json: any;
}

export type Answer = { status: number; headers?: Record<string, string>; body?: string } | 'hang';

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** Answers for the next requests, in order; afterwards every request gets 200. */
  script(...answers: Answer[]): void;
  /** Resolves when `n` requests (in all) have arrived, or rejects after `ms`. */
  waitFor(n: number, ms?: number): Promise<Received[]>;
  close(): Promise<void>;
  listen(port?: number): Promise<void>;
}

export async function startReceiver(port = 0): Promise<Receiver> {
  const received: Received[] = [];
  const answers: Answer[] = [];
  const waiters: Array<() => void> = [];
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let json: unknown;
      try {
        json = JSON.parse(raw.toString('utf8'));
      } catch {}
      received.push({ path: req.url ?? '/', headers: req.headers, raw, json });
      for (const w of waiters.splice(0)) w();
      const a = answers.shift() ?? { status: 200, body: 'ok' };
      if (a === 'hang') {
        hanging.add(res);
        return;
      }
      res.writeHead(a.status, { 'content-type': 'text/plain', ...a.headers });
      res.end(a.body ?? '');
    });
  });
  const r: Receiver = {
    url: '',
    port: 0,
    received,
    script: (...a) => answers.push(...a),
    async waitFor(n, ms = 30_000) {
      const deadline = Date.now() + ms;
      while (received.length < n) {
        if (Date.now() > deadline) throw new Error(`expected ${n} requests, got ${received.length}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200);
        });
      }
      return received;
    },
    async close() {
      for (const res of hanging) res.destroy();
      hanging.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    async listen(p = r.port) {
      await new Promise<void>((resolve, reject) => server.once('error', reject).listen(p, '127.0.0.1', () => resolve()));
      r.port = (server.address() as AddressInfo).port;
      r.url = `http://127.0.0.1:${r.port}`;
    },
  };
  await r.listen(port);
  return r;
}
