// One delivery attempt: a signed POST to a partner's URL, guarded against SSRF, bounded in time and in
// the bytes it reads back, never following redirects. It reports what happened instead of throwing, so
// the task can record every attempt in the delivery log and decide on a retry.
import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { z } from 'zod';
import { signBody, standardWebhookHeaders } from './sign.ts';
import { inAnyCidr, inCidr, nonGlobalReason, parseCidr, parseIp, type Cidr } from './ssrf.ts';

export const DEFAULT_TIMEOUT_MS = 15_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 4096;
export const DEFAULT_USER_AGENT = 'insurance-intake-service-webhooks/1.0';

const RESERVED_HEADERS = new Set([
  'content-type',
  'content-length',
  'transfer-encoding',
  'host',
  'connection',
  'user-agent',
  'x-signature',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
]);

/**
 * A value that can go into an HTTP header as it is: what Node's validateHeaderValue accepts (tab, printable ASCII and
 * Latin-1). Refused when the endpoint is saved, so no stored credential can make an attempt throw before it is sent.
 */
const headerSafe = z.string().regex(/^[\t\x20-\x7e\x80-\xff]*$/, 'must not contain control characters (NUL, CR, LF, …) or characters beyond Latin-1');
/** Basic credentials are sent base64-encoded, but RFC 7617 still forbids control characters in them (and a colon in the user name). */
const basicPart = z.string().regex(/^[^\x00-\x1f\x7f]*$/, 'must not contain control characters (NUL, CR, LF, …)');

/** Credentials an endpoint may require besides the signature (SPEC §5 rule 3). */
export const EndpointAuth = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('bearer'), token: headerSafe.min(1) }).strict(),
  z.object({ kind: z.literal('basic'), username: basicPart.regex(/^[^:]*$/, 'must not contain a colon'), password: basicPart }).strict(),
  z
    .object({
      kind: z.literal('header'),
      name: z
        .string()
        .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'must be an HTTP header name')
        // The signature headers prove origin and the framing headers belong to us: a configured header must not replace them.
        .refine((n) => !RESERVED_HEADERS.has(n.toLowerCase()), 'is a header the service sets itself'),
      value: headerSafe,
    })
    .strict(),
]);
export type EndpointAuth = z.infer<typeof EndpointAuth>;

export type ResolvedAddress = { address: string; family: 4 | 6 };
/** Resolves a host name to all its addresses (default: the system resolver, `dns.lookup` with `all`). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const DeliveryRequest = z
  .object({
    url: z.string(),
    /** The exact bytes to send and sign. */
    body: z.union([z.instanceof(Buffer), z.string()]),
    /** The endpoint's signing secret (decrypted). */
    secret: z.string().min(1),
    /** Stable across retries of the same delivery: receivers de-duplicate on `webhook-id`. */
    webhookId: z.string().min(1),
    /** Unix seconds put in `webhook-timestamp`; default now. */
    timestamp: z.number().int().positive().optional(),
    auth: EndpointAuth.nullish(),
  })
  .strict();
export type DeliveryRequest = z.input<typeof DeliveryRequest>;

export const DeliveryOptions = z
  .object({
    timeoutMs: z.number().int().positive().default(DEFAULT_TIMEOUT_MS),
    maxResponseBytes: z.number().int().nonnegative().default(DEFAULT_MAX_RESPONSE_BYTES),
    /** Refuse plain http unless the host is allow-listed (production URLs). */
    requireHttps: z.boolean().default(false),
    /** Host names or IP literals exempt from the SSRF guard and from requireHttps (case-insensitive). */
    allowHosts: z.array(z.string().min(1)).default([]),
    /** Address ranges exempt from the SSRF guard, e.g. `127.0.0.1/32`, `10.1.0.0/16`. */
    allowCidrs: z.array(z.string().min(1)).default([]),
    userAgent: z.string().min(1).default(DEFAULT_USER_AGENT),
    /** graphile-worker's helpers.abortSignal: an abort ends the attempt with error code 'aborted'. */
    signal: z.instanceof(AbortSignal).optional(),
    /** Replaces the system resolver (tests; a custom DNS). */
    resolve: z.custom<Resolver>((v) => typeof v === 'function').optional(),
    /** Trusted CA certificates for https (tests with a self-signed receiver). */
    ca: z.union([z.string(), z.instanceof(Buffer)]).optional(),
    /**
     * Reuse connections: kept-alive sockets are pooled per resolved address (the address that passed the SSRF
     * check), so a reused socket is never one that was connected for another resolution of the name.
     */
    keepAlive: z.boolean().default(false),
  })
  .strict();
export type DeliveryOptions = z.input<typeof DeliveryOptions>;

/** Why an attempt failed; `request`: the request could not be made (credentials or a header Node refuses), nothing was sent. */
export type DeliveryErrorCode =
  'invalid_url' | 'https_required' | 'dns' | 'ssrf_blocked' | 'timeout' | 'connection' | 'tls' | 'redirect' | 'aborted' | 'response' | 'request';

export type DeliveryAttemptResult = {
  /** True for a 2xx status: the receiver has the event. */
  ok: boolean;
  /** HTTP status, or null when no response arrived. */
  status: number | null;
  duration_ms: number;
  /** Lower-case names; repeated headers joined with ', '. Empty when no response arrived. */
  response_headers: Record<string, string>;
  /** The first maxResponseBytes of the body, decoded as UTF-8. */
  response_body: string;
  response_body_truncated: boolean;
  /** The address actually connected to (after the SSRF check), or null when no connection was made. */
  remote_address: string | null;
  /** The Location of a 3xx, which is not followed. */
  location: string | null;
  /** Null when the receiver answered (any status except 3xx); otherwise why the attempt failed. */
  error: null | { code: DeliveryErrorCode; message: string };
  /** True on 410 Gone: the receiver asks never to be called again, so the endpoint is disabled. */
  disable: boolean;
};

/** The headers of a delivery: content type, user agent, `x-signature`, Standard Webhooks headers and any endpoint auth. */
export function deliveryHeaders(request: DeliveryRequest, userAgent: string = DEFAULT_USER_AGENT): Record<string, string> {
  const r = DeliveryRequest.parse(request);
  const body = typeof r.body === 'string' ? Buffer.from(r.body, 'utf8') : r.body;
  return Object.fromEntries(headerPairs(r, body, userAgent));
}

/** The request as deliver() has checked it (or as a Deliverer's caller vouches for it). */
type CheckedRequest = z.output<typeof DeliveryRequest>;

/** deliveryHeaders of a checked request, as [name, value] pairs in the order they are sent. */
function headerPairs(r: CheckedRequest, body: Buffer, userAgent: string): Array<[string, string]> {
  const signed = standardWebhookHeaders({ id: r.webhookId, timestamp: r.timestamp ?? Math.floor(Date.now() / 1000), body, secret: r.secret });
  const headers: Array<[string, string]> = [
    ['content-type', 'application/json'],
    ['content-length', String(body.length)],
    ['user-agent', userAgent],
    ['x-signature', signBody(r.secret, body)],
    ['webhook-id', signed['webhook-id']],
    ['webhook-timestamp', signed['webhook-timestamp']],
    ['webhook-signature', signed['webhook-signature']],
  ];
  const auth = r.auth;
  if (auth?.kind === 'bearer') headers.push(['authorization', `Bearer ${auth.token}`]);
  else if (auth?.kind === 'basic') {
    headers.push(['authorization', `Basic ${Buffer.from(`${auth.username}:${auth.password}`, 'utf8').toString('base64')}`]);
  } else if (auth?.kind === 'header') {
    headers.push([auth.name.toLowerCase(), auth.value]);
  }
  if (auth) {
    // Sent as raw headers (see attempt): the endpoint's credentials are the one part not made here, so Node's own
    // checks run on them (a line break in a token must never start a header of its own).
    const [name, value] = headers[headers.length - 1];
    http.validateHeaderName(name);
    http.validateHeaderValue(name, value);
  }
  return headers;
}

type Target = { url: URL; hostname: string; port: number; address: ResolvedAddress };

class AttemptError extends Error {
  readonly code: DeliveryErrorCode;

  constructor(code: DeliveryErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

/**
 * Checks the URL, resolves its host once, refuses non-global addresses that are not allow-listed, and
 * returns the address to connect to. Exported so routes can reject a bad URL at registration time.
 */
export async function resolveTarget(
  rawUrl: string,
  options: Pick<DeliveryOptions, 'allowHosts' | 'allowCidrs' | 'requireHttps' | 'resolve'> = {},
): Promise<Target> {
  return resolveChecked(rawUrl, {
    ...allowList(options.allowHosts ?? [], options.allowCidrs ?? []),
    requireHttps: options.requireHttps ?? false,
    resolve: options.resolve,
  });
}

/** Allow-listed hosts (without brackets, lower case) and address ranges, as resolveChecked reads them. */
type AllowList = { hosts: string[]; cidrs: Cidr[] };

function allowList(hosts: string[], cidrs: string[]): AllowList {
  return { hosts: hosts.map((h) => h.replace(/^\[|\]$/g, '').toLowerCase()), cidrs: cidrs.map(parseCidr) };
}

/** What a URL says by itself (no resolution, no allow list): parsed once per URL and kept (bounded). */
type ParsedUrl = { url: URL; hostname: string; port: number; literal: 0 | 4 | 6; literalReason: string | null; literalBytes: Uint8Array | null };
const parsedUrls = new Map<string, ParsedUrl>();
const PARSED_URLS_SIZE = 1000;

function parseTargetUrl(rawUrl: string): ParsedUrl {
  const known = parsedUrls.get(rawUrl);
  if (known) return known;
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new AttemptError('invalid_url', 'not a valid absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new AttemptError('invalid_url', `scheme ${url.protocol} is not http or https`);
  }
  if (url.username || url.password) throw new AttemptError('invalid_url', 'credentials in the URL are not allowed');
  const hostname = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (!hostname) throw new AttemptError('invalid_url', 'the URL has no host');
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  const literal = isIP(hostname) as 0 | 4 | 6;
  const parsed = {
    url,
    hostname,
    port,
    literal,
    literalReason: literal ? nonGlobalReason(hostname) : null,
    literalBytes: literal ? parseIp(hostname) : null,
  };
  if (parsedUrls.size >= PARSED_URLS_SIZE) parsedUrls.clear();
  parsedUrls.set(rawUrl, parsed);
  return parsed;
}

/** resolveTarget with the allow list prepared (a Deliverer prepares it once). */
async function resolveChecked(rawUrl: string, options: AllowList & { requireHttps: boolean; resolve?: Resolver }): Promise<Target> {
  const { url, hostname, port, literal, literalReason, literalBytes } = parseTargetUrl(rawUrl);
  const allowCidrs = options.cidrs;
  const hostAllowed = options.hosts.includes(hostname) || (literalBytes !== null && allowCidrs.some((c) => inCidr(literalBytes, c)));
  if (options.requireHttps && url.protocol !== 'https:' && !hostAllowed) {
    throw new AttemptError('https_required', 'this URL must use https');
  }

  if (literal) {
    // An IP literal is its own address: judged once, when the URL was parsed.
    if (!hostAllowed && literalReason) throw new AttemptError('ssrf_blocked', `${hostname} resolves to a non-public address (${literalReason})`);
    return { url, hostname, port, address: { address: hostname, family: literal } };
  }
  let addresses: ResolvedAddress[];
  try {
    const resolve = options.resolve ?? defaultResolve;
    addresses = await resolve(hostname);
  } catch (err) {
    throw new AttemptError('dns', `could not resolve ${hostname}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  if (addresses.length === 0) throw new AttemptError('dns', `${hostname} has no addresses`);
  if (!hostAllowed) {
    // Every address must be public: a name with one private address among public ones could be steered there.
    for (const a of addresses) {
      const why = nonGlobalReason(a.address);
      if (why && !inAnyCidr(a.address, allowCidrs)) {
        throw new AttemptError('ssrf_blocked', `${hostname} resolves to a non-public address (${why})`);
      }
    }
  }
  return { url, hostname, port, address: addresses[0] };
}

const defaultResolve: Resolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => ({
    address: a.address,
    family: a.family === 6 ? 6 : 4,
  }));

/** POSTs one signed delivery and reports the outcome; never throws for network or receiver failures. */
export async function deliver(request: DeliveryRequest, options: DeliveryOptions = {}): Promise<DeliveryAttemptResult> {
  const o = DeliveryOptions.parse(options);
  if (o.signal?.aborted) return failedAt(performance.now(), 'aborted', 'aborted before sending');
  return sendChecked(DeliveryRequest.parse(request), { ...o, ...allowList(o.allowHosts, o.allowCidrs) });
}

/** A request a Deliverer sends as given: its caller vouches for its shape (rows of the service's own database). */
export type TrustedDeliveryRequest = z.output<typeof DeliveryRequest>;

/** deliver() with options checked once, for many requests; requireHttps and the abort signal are per request. */
export type Deliverer = (request: TrustedDeliveryRequest, call?: { requireHttps?: boolean; signal?: AbortSignal }) => Promise<DeliveryAttemptResult>;

/**
 * A deliver() for the worker: the options are parsed (and the allow list prepared) once, and requests are not
 * validated again (the worker's come from its database; endpoint credentials are checked when decrypted), so an
 * attempt costs the POST and its signature, not a schema check of each.
 */
export function createDeliverer(options: Omit<DeliveryOptions, 'signal' | 'requireHttps'> = {}): Deliverer {
  const o = DeliveryOptions.parse(options);
  const base = { ...o, ...allowList(o.allowHosts, o.allowCidrs) };
  return (request, call = {}) => {
    if (call.signal?.aborted) return Promise.resolve(failedAt(performance.now(), 'aborted', 'aborted before sending'));
    return sendChecked(request, { ...base, requireHttps: call.requireHttps ?? false, signal: call.signal });
  };
}

type SendOptions = z.output<typeof DeliveryOptions> & AllowList;

/** The result of an attempt that could not be made at all (it threw before sending), to be recorded like any failure. */
export function unsentAttempt(durationMs: number, err: unknown): DeliveryAttemptResult {
  return failedAt(performance.now() - durationMs, 'request', `the request could not be made: ${err instanceof Error ? err.message : String(err)}`);
}

function failedAt(started: number, code: DeliveryErrorCode, message: string): DeliveryAttemptResult {
  return attemptResult(started, { error: { code, message } });
}

/** An attempt's result: nothing received unless `partial` says so, and its duration since `started`. */
function attemptResult(started: number, partial: Partial<DeliveryAttemptResult>): DeliveryAttemptResult {
  return {
    ok: false,
    status: null,
    response_headers: {},
    response_body: '',
    response_body_truncated: false,
    remote_address: null,
    location: null,
    error: null,
    disable: false,
    ...partial,
    duration_ms: Math.round(performance.now() - started),
  };
}

async function sendChecked(r: CheckedRequest, o: SendOptions): Promise<DeliveryAttemptResult> {
  const started = performance.now();
  const result = (partial: Partial<DeliveryAttemptResult>) => attemptResult(started, partial);
  const failed = (code: DeliveryErrorCode, message: string) => result({ error: { code, message } });

  const body = typeof r.body === 'string' ? Buffer.from(r.body, 'utf8') : r.body;
  let headers: Array<[string, string]>;
  try {
    headers = headerPairs(r, body, o.userAgent);
  } catch (err) {
    // Credentials saved before they were checked at registration (a NUL or line break in a token): nothing is sent.
    return failed('request', `the request could not be made: ${(err as Error).message}`);
  }

  // One deadline for the whole attempt, resolution included: a plain timer cleared at the end, so nothing of
  // an attempt (AbortSignal.timeout/any would) outlives it until garbage collection.
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, o.timeoutMs);
  const onCallerAbort = () => controller.abort();
  o.signal?.addEventListener('abort', onCallerAbort, { once: true });
  try {
    return await attempt(
      o,
      r.url,
      body,
      headers,
      controller.signal,
      () => (timedOut ? ['timeout', `no answer within ${o.timeoutMs} ms`] : ['aborted', 'aborted']),
      result,
      failed,
    );
  } finally {
    clearTimeout(timer);
    o.signal?.removeEventListener('abort', onCallerAbort);
  }
}

async function attempt(
  o: SendOptions,
  url: string,
  body: Buffer,
  headers: Array<[string, string]>,
  signal: AbortSignal,
  stopReason: () => [DeliveryErrorCode, string],
  result: (partial: Partial<DeliveryAttemptResult>) => DeliveryAttemptResult,
  failed: (code: DeliveryErrorCode, message: string) => DeliveryAttemptResult,
): Promise<DeliveryAttemptResult> {
  let target: Target;
  try {
    target = await raceAbort(resolveChecked(url, o), signal);
  } catch (err) {
    if (err instanceof AttemptError) return failed(err.code, err.message);
    if (signal.aborted) return failed(...stopReason());
    return failed('dns', (err as Error).message);
  }

  const pinned = target.address;
  // The socket connects to the address that passed the check, never to a second resolution of the name.
  const lookup: LookupFunction = (_hostname, opts, callback) => {
    if (opts && (opts as { all?: boolean }).all) {
      (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [pinned]);
    } else callback(null, pinned.address, pinned.family);
  };
  const isHttps = target.url.protocol === 'https:';
  const literal = isIP(target.hostname) !== 0;
  const pooled = o.keepAlive && !o.ca ? pooledAgent(isHttps, pinned, target.port, literal ? undefined : target.hostname) : undefined;
  // Raw headers (name, value, …) go out as given, without Node checking each name and value again. They are ours
  // (an endpoint's own header name and value were checked when it was saved), with Host, the name in the URL
  // (and its port unless the scheme's default), first.
  const rawHeaders = ['host', target.url.host];
  for (const [name, value] of headers) rawHeaders.push(name, value);
  const first = await send(pooled);
  // A kept-alive socket the receiver closed in the meantime fails before any byte of an answer: try once more on a new one.
  if (first.reused && first.result.error?.code === 'connection' && first.result.status === null && !signal.aborted) return (await send(undefined)).result;
  return first.result;

  function send(agent: http.Agent | undefined): Promise<{ result: DeliveryAttemptResult; reused: boolean }> {
    return new Promise<{ result: DeliveryAttemptResult; reused: boolean }>((resolveSend) => {
      let reused = false;
      const done = (res: DeliveryAttemptResult) => resolveSend({ result: res, reused });
      let settled = false;
      const finish = (res: DeliveryAttemptResult) => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', onAbort);
        done(res);
      };
      const requestOptions: https.RequestOptions = {
        method: 'POST',
        protocol: target.url.protocol,
        host: literal ? pinned.address : target.hostname,
        family: pinned.family,
        port: target.port,
        path: target.url.pathname + target.url.search,
        headers: rawHeaders,
        lookup,
        // No socket that was connected for another resolution: either a fresh one or one pooled per pinned address.
        agent: agent ?? false,
        ...(isHttps ? { servername: literal ? undefined : target.hostname, ca: o.ca } : {}),
      };
      const req = (isHttps ? https : http).request(requestOptions);
      let remote: string | null = null;
      let response: http.IncomingMessage | null = null;
      let stopped: { code: DeliveryErrorCode; message: string } | null = null;
      req.on('socket', (socket) => {
        // A kept-alive socket handed to a request that waited at the agent (all sockets busy) is connected but not
        // flagged reusedSocket by Node: ask the socket itself. No 'connect' will come for a connected socket (a
        // listener per request would pile up on it), and a stale one gets the same one retry as any reused socket.
        reused = req.reusedSocket || !socket.connecting;
        if (reused) {
          remote = socket.remoteAddress ?? pinned.address;
          return;
        }
        socket.once('connect', () => {
          remote = socket.remoteAddress ?? pinned.address;
        });
      });

      const onAbort = () => {
        const [code, message] = stopReason();
        const err = new AttemptError(code, message);
        stopped = { code, message };
        if (response) response.destroy(err); // keep the status already received; report why reading stopped
        req.destroy(err);
      };
      signal.addEventListener('abort', onAbort, { once: true });

      req.on('error', (err) => {
        if (settled || response) return; // once a response arrived, its own handlers report the outcome
        if (err instanceof AttemptError) finish(failed(err.code, err.message));
        else finish(result({ remote_address: remote, error: classify(err) }));
      });

      req.on('response', (res) => {
        response = res;
        const status = res.statusCode ?? 0;
        const responseHeaders: Record<string, string> = {};
        for (const [name, value] of Object.entries(res.headers)) {
          if (value !== undefined) responseHeaders[name] = Array.isArray(value) ? value.join(', ') : value;
        }
        const chunks: Buffer[] = [];
        let kept = 0;
        let truncated = false;
        const complete = (error: DeliveryAttemptResult['error']) => {
          const isRedirect = status >= 300 && status < 400;
          const location = isRedirect ? (responseHeaders.location ?? null) : null;
          finish(
            result({
              ok: status >= 200 && status < 300,
              status,
              response_headers: responseHeaders,
              response_body: Buffer.concat(chunks).toString('utf8'),
              response_body_truncated: truncated,
              remote_address: remote ?? res.socket?.remoteAddress ?? pinned.address,
              location,
              disable: status === 410,
              error: error ?? (isRedirect ? { code: 'redirect', message: `redirect ${status} to ${location ?? '(no Location)'} not followed` } : null),
            }),
          );
        };
        res.on('data', (chunk: Buffer) => {
          if (settled) return;
          const room = o.maxResponseBytes - kept;
          if (chunk.length > room) {
            chunks.push(chunk.subarray(0, room));
            kept += room;
            truncated = true;
            complete(null);
            res.destroy(); // stop reading: the rest of a huge answer is never downloaded
            req.destroy();
            return;
          }
          chunks.push(chunk);
          kept += chunk.length;
        });
        res.on('end', () => complete(null));
        const broken = (message: string) =>
          complete(stopped ? { code: stopped.code, message: `${stopped.message} (while reading the response)` } : { code: 'response', message });
        res.on('error', (err) => broken(err.message));
        res.on('aborted', () => broken('the receiver closed the connection mid-response'));
        res.on('close', () => broken('the connection closed before the response ended')); // no-op after 'end'
      });

      req.end(body);
    });
  }
}

// Kept-alive agents, one per (scheme, pinned address, port, TLS name); the oldest is closed past a bound.
const agents = new Map<string, http.Agent>();
const MAX_AGENTS = 256;

function pooledAgent(isHttps: boolean, pinned: ResolvedAddress, port: number, servername: string | undefined): http.Agent {
  const key = `${isHttps ? 'https' : 'http'}|${pinned.address}|${port}|${servername ?? ''}`;
  let agent = agents.get(key);
  if (agent) {
    agents.delete(key); // re-insert: the map's order is least recently used first
    agents.set(key, agent);
    return agent;
  }
  const opts = { keepAlive: true, keepAliveMsecs: 1000, maxSockets: 32, maxFreeSockets: 32, timeout: 30_000, scheduling: 'lifo' as const };
  agent = isHttps ? new https.Agent(opts) : new http.Agent(opts);
  agents.set(key, agent);
  if (agents.size > MAX_AGENTS) {
    const [oldestKey, oldest] = agents.entries().next().value as [string, http.Agent];
    agents.delete(oldestKey);
    oldest.destroy();
  }
  return agent;
}

/** Close every kept-alive connection (worker shutdown, tests). */
export function closeDeliveryConnections(): void {
  for (const a of agents.values()) a.destroy();
  agents.clear();
}

function classify(err: NodeJS.ErrnoException): { code: DeliveryErrorCode; message: string } {
  const code = err.code ?? '';
  if (code === 'ETIMEDOUT') return { code: 'timeout', message: err.message };
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return { code: 'dns', message: err.message };
  if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|HOSTNAME|ERR_TLS/.test(code) || /SSL|TLS|certificate/i.test(err.message)) {
    return { code: 'tls', message: err.message };
  }
  return { code: 'connection', message: code ? `${code}: ${err.message}` : err.message };
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
