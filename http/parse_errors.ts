// Requests Node's HTTP parser refuses before Koa sees them (an unknown method such as `FOO`, a malformed
// header line, headers too large) get the error body of the surface their path belongs to, instead of
// Node's plain-text `400 Bad Request`. An unknown method is 501 Not Implemented; the other refusals keep
// Node's status (400, 431, 408). The connection is closed afterwards: the parser cannot resume mid-stream.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { STATUS_CODES } from 'node:http';
import { badRequest, headersTooLarge, notImplemented, requestTimeout, type ApiError, type ErrorPresenter } from './errors.ts';

interface ParseError extends Error {
  code?: string;
  /** The bytes of the chunk the parser was reading, when Node kept them. */
  rawPacket?: Buffer;
  /** Where in `rawPacket` the parser stopped. */
  bytesParsed?: number;
}

/** Method and request target of the request line the parser stopped in, if they can be read from the raw bytes. */
export function requestLineAt(raw: Buffer | undefined, offset: number | undefined): { method: string; target: string } | undefined {
  if (!raw?.length) return undefined;
  const at = Math.min(Math.max(offset ?? 0, 0), raw.length);
  // The request the parser stopped in starts after the blank line that ends the previous (pipelined) request's
  // head, or at the start of the chunk; its first line is the request line.
  const before = raw.subarray(0, at).toString('latin1');
  const crlf = before.lastIndexOf('\n\r\n');
  const lf = before.lastIndexOf('\n\n');
  const start = Math.max(crlf < 0 ? 0 : crlf + 3, lf < 0 ? 0 : lf + 2);
  let end = raw.indexOf(0x0a, start);
  if (end < 0) end = raw.length;
  const line = raw
    .subarray(start, Math.min(end, start + 8192))
    .toString('latin1')
    .replace(/\r$/, '');
  const m = /^(\S{1,64}) (\S+)(?: HTTP\/\d\.\d)?$/.exec(line);
  return m ? { method: m[1], target: m[2] } : undefined;
}

/** The path of a request target (origin-form or absolute-form); `/` when it has none. */
export function pathOf(target: string): string {
  if (target.startsWith('/')) return target.split(/[?#]/)[0];
  try {
    return new URL(target).pathname || '/';
  } catch {
    return '/';
  }
}

/** The ApiError for a parser refusal: 501 for a method Node does not know, else Node's own status. */
export function parseErrorAsApiError(err: ParseError, method: string | undefined): ApiError {
  switch (err.code) {
    case 'HPE_INVALID_METHOD':
      return notImplemented(`the method ${method && /^[\x21-\x7e]+$/.test(method) ? method : '(unreadable)'} is not implemented`, { code: 'not_implemented' });
    case 'HPE_HEADER_OVERFLOW':
      return headersTooLarge('the request headers are too large');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return requestTimeout('the request did not arrive in time');
    default:
      return badRequest(`the request is not valid HTTP/1.1 (${err.code ?? 'parse error'})`);
  }
}

/** The raw HTTP/1.1 response of an ApiError, in the body of the surface `path` belongs to. */
export function rawErrorResponse(err: ApiError, presenter: ErrorPresenter): string {
  const body = JSON.stringify(presenter(err));
  const headers = [
    `HTTP/1.1 ${err.status} ${STATUS_CODES[err.status] ?? 'Error'}`,
    `Content-Type: ${presenter.contentType ?? 'application/json'}; charset=utf-8`,
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    ...Object.entries(err.headers).map(([k, v]) => `${k}: ${v}`),
  ];
  return `${headers.join('\r\n')}\r\n\r\n${body}`;
}

/**
 * Answer the parser's refusals (`clientError`) and CONNECT requests (which Node hands to a `connect` listener,
 * or drops) in the surface's error shape. `presenterFor` picks the body from the request's path.
 */
export function answerParseErrors(server: Server, presenterFor: (path: string) => ErrorPresenter): void {
  server.on('clientError', (err: ParseError, socket: Socket) => {
    // The peer is gone (reset, or closed mid-request): nobody to answer.
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const line = requestLineAt(err.rawPacket, err.bytesParsed);
    const apiError = parseErrorAsApiError(err, line?.method);
    const response = rawErrorResponse(apiError, presenterFor(line ? pathOf(line.target) : '/'));
    // A pipelined request's response still being written comes first; ours follows it, then the connection ends.
    const inFlight = (socket as Socket & { _httpMessage?: { writableFinished?: boolean; once(e: string, f: () => void): void } })._httpMessage;
    let answered = false;
    const answer = () => {
      if (answered) return;
      answered = true;
      if (socket.writable) socket.end(response);
      else socket.destroy();
    };
    if (inFlight && !inFlight.writableFinished) {
      inFlight.once('finish', answer);
      inFlight.once('close', answer);
    } else answer();
  });
  server.on('connect', (req: { url?: string; method?: string }, socket: Socket) => {
    const err = notImplemented(`the method ${req.method ?? 'CONNECT'} is not implemented`, { code: 'not_implemented' });
    socket.on('error', () => socket.destroy());
    socket.end(rawErrorResponse(err, presenterFor(pathOf(req.url ?? '/'))));
  });
}
