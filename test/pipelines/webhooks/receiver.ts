// A real webhook receiver on 127.0.0.1 for the delivery tests: records every connection and request.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Received = { method: string; url: string; headers: http.IncomingHttpHeaders; body: Buffer };
export type Receiver = {
  url: (path?: string) => string;
  port: number;
  requests: Received[];
  connections: () => number;
  close: () => Promise<void>;
};

type Handler = (req: Received, res: http.ServerResponse) => unknown;

export async function startReceiver(handler: Handler = (_r, res) => res.end('ok')): Promise<Receiver> {
  const requests: Received[] = [];
  let connections = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
      requests.push(received);
      void handler(received, res);
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    requests,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port on 127.0.0.1 with nothing listening (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
