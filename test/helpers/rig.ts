// The set-up most webhook and worker tests share: a service on its own test database (with `env` settings), a
// worker running its tasks (unless `worker: false`: a test then starts its own with `startWorker`), and receivers
// started on demand; all closed after the file, with the document pools (pdf.js, OCR) the worker's stages opened.
import test from 'ava';
import type { Runner } from 'graphile-worker';
import { closeDocumentPools } from '../../pipelines/documents/index.ts';
import { sampleTopicPayload } from '../../pipelines/webhooks/payloads.ts';
import { startReceiver, type Receiver } from './receiver.ts';
import { startService, type TestService } from './server.ts';
import { startTestWorker } from './worker.ts';

export interface Rig {
  /** The service (set before the first test runs). */
  readonly svc: TestService;
  /** The worker, when the rig runs one. */
  readonly worker: Runner | undefined;
  /** Start the rig's worker (a rig made with `worker: false`): a test worker, or the runner `start` makes; stopped after the file. */
  startWorker(start?: (svc: TestService) => Promise<Runner>): Promise<Runner>;
  /** A webhook receiver on a local port, closed after the file. */
  receiver(): Promise<Receiver>;
  /** A new agency of a new OAuth client, with an admin API key in each mode. */
  agency(): Promise<AgencyWithKeys>;
  /** An agency (test key only) with a form-submission endpoint whose staging URL is `url`/h; its id and endpoint id. */
  endpointTo(url: string): Promise<{ agencyId: number; endpointId: string }>;
  /** app_private.emit_event, as a route or task emits an event; the event's id. */
  emit(agencyId: number, mode: 'test' | 'live', topic: string | null, eventName: string | null, data: unknown): Promise<number>;
}

export type AgencyWithKeys = Awaited<ReturnType<TestService['agency']>> & { oauth: { token: string }; test: string; live: string };

/** A new agency of a new OAuth client, with an admin API key in each mode. */
export async function agencyWithKeys(svc: TestService): Promise<AgencyWithKeys> {
  const oauth = await svc.oauthClient();
  const a = await svc.agency(oauth.token);
  return { ...a, oauth, test: await svc.apiKey(a.ownerToken, a.agencyId, 'test'), live: await svc.apiKey(a.ownerToken, a.agencyId, 'live') };
}

/** The data of a form-submission event for submission `submission_id` (the documented sample's, renumbered). */
export const formData = (submission_id: number) => ({ ...sampleTopicPayload('form-submission').data, submission_id });

export function serviceRig(env: Record<string, string>, opts: { worker?: boolean } = {}): Rig {
  let svc: TestService | undefined;
  let worker: Runner | undefined;
  const receivers: Receiver[] = [];
  test.before(async () => {
    svc = await startService(env);
    if (opts.worker !== false) worker = await startTestWorker(svc);
  });
  test.after.always(async () => {
    await worker?.stop();
    await closeDocumentPools();
    await Promise.all(receivers.map((r) => r.close()));
    await svc?.close();
  });
  const started = () => {
    if (!svc) throw new Error('the service is not started yet (use it inside a test or hook)');
    return svc;
  };
  return {
    get svc() {
      return started();
    },
    get worker() {
      return worker;
    },
    async startWorker(start = startTestWorker) {
      if (worker) throw new Error('the rig already runs a worker');
      worker = await start(started());
      return worker;
    },
    async receiver() {
      const r = await startReceiver();
      receivers.push(r);
      return r;
    },
    agency: () => agencyWithKeys(started()),
    async endpointTo(url) {
      const c = await started().oauthClient();
      const a = await started().agency(c.token);
      const key = await started().apiKey(a.ownerToken, a.agencyId, 'test');
      const put = await started().request('PUT', '/v2/webhook-endpoints/form-submission', { token: key, json: { staging_url: `${url}/h` } });
      if (put.status !== 201 && put.status !== 200) throw new Error(`endpoint: ${put.status} ${put.text}`);
      const { rows } = await started().tdb.db.owner.query('select id from app_public.webhook_endpoints where agency_id = $1', [a.agencyId]);
      return { agencyId: a.agencyId, endpointId: rows[0].id as string };
    },
    emit(agencyId, mode, topic, eventName, data) {
      return started()
        .tdb.db.owner.query('select app_private.emit_event($1, $2, $3, $4, $5) as id', [agencyId, mode, topic, eventName, JSON.stringify(data)])
        .then((r) => Number(r.rows[0].id));
    },
  };
}
