// What the hosted form's browser tests share: the dashboard tests' world (a service with a worker, a webhook receiver
// and Chromium, the agency "Harbor Lane Insurance") with a test key whose form-submission endpoint is the receiver,
// and a partner's page on another origin that frames the form and records the messages it receives.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startDashboardWorld, type DashboardWorld } from './dashboard.ts';

export interface HostedWorld extends DashboardWorld {
  /** Agency a's test key. */
  key: string;
}

/** The dashboard tests' world, with Harbor Lane's colour set and a test key whose form-submission endpoint is the receiver. */
export async function startHostedWorld(): Promise<HostedWorld> {
  const w = await startDashboardWorld();
  const { svc, a, receiver } = w;
  await svc.request('PATCH', `/v1/agencies/${a.agencyId}`, { token: a.ownerToken, json: { color_code: '0E7C66' } });
  const key = await svc.apiKey(a.ownerToken, a.agencyId, 'test');
  await svc.request('PUT', '/v2/webhook-endpoints/form-submission', { token: key, json: { staging_url: `${receiver.url}/hooks` } });
  return { ...w, key };
}

/** A partner's page that frames `src` (`height` px tall) and records every message it receives in `window.__messages`. */
export function partnerPage(getSrc: () => string, height = 900): http.Server {
  return http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html lang="en"><head><title>Partner site</title></head><body><h1>Get a quote</h1>
<script>window.__messages = []; window.addEventListener('message', function (e) { window.__messages.push({ origin: e.origin, data: e.data }); });</script>
<iframe id="quote" title="Quote form" src="${getSrc()}" style="width:100%;max-width:760px;height:${height}px;border:0"></iframe></body></html>`);
  });
}

/** Start `server` on a free port; its origin on `localhost`, another host name than the service's 127.0.0.1 (a different origin, as on the web). */
export async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return `http://localhost:${(server.address() as AddressInfo).port}`;
}

/** Close a partner page's server if it is listening. */
export async function closeServer(server: http.Server | undefined): Promise<void> {
  if (server?.listening) await new Promise<void>((r) => server.close(() => r()));
}
