// Structured JSON logs on stdout. Never pass tokens, secrets, API keys or document content.
type Level = 'debug' | 'info' | 'warn' | 'error';
const order: Record<Level | 'silent', number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

let threshold: Level | 'silent' = 'info';
let stream: NodeJS.WritableStream | undefined;

/** Send every line to one stream (CLI commands keep stdout for their own output). */
export function setLogStream(s: NodeJS.WritableStream): void {
  stream = s;
}

/** Set the lowest level that is written. */
export function setLogLevel(level: Level | 'silent'): void {
  threshold = level;
}

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

/**
 * Identical lines (level, message and fields alike; the time aside) are written at most REPEAT_LIMIT times per
 * REPEAT_WINDOW_MS; past that they are counted, and the next identical line after the window (or the window's end,
 * if none comes) is written once with `repeated`: how many were left out. A loop that fails the same way on every
 * turn then costs a few lines a window, not gigabytes of log.
 */
const REPEAT_LIMIT = 5;
const REPEAT_WINDOW_MS = 10_000;
/** Distinct lines tracked per window at most; past it, a window starts afresh (reporting what it left out). */
const REPEAT_KEYS = 10_000;

type Seen = { level: Level; count: number; left: number };
let seen = new Map<string, Seen>();
let windowTimer: NodeJS.Timeout | undefined;

/** Change the repeat window (tests); returns the previous settings. */
export function setLogRepeatLimit(limit: { lines: number; windowMs: number }): { lines: number; windowMs: number } {
  const previous = { lines: repeatLimit, windowMs: repeatWindowMs };
  endWindow();
  repeatLimit = limit.lines;
  repeatWindowMs = limit.windowMs;
  return previous;
}
let repeatLimit = REPEAT_LIMIT;
let repeatWindowMs = REPEAT_WINDOW_MS;

function output(level: Level, body: string): void {
  // body is the line's JSON without its time: `{"level":…}`.
  (stream ?? (level === 'error' || level === 'warn' ? process.stderr : process.stdout)).write(`{"time":"${new Date().toISOString()}",${body.slice(1)}\n`);
}

/** End the window: each line left out in it is written once more with how many times it was left out. */
function endWindow(): void {
  if (windowTimer) clearTimeout(windowTimer);
  windowTimer = undefined;
  const ended = seen;
  seen = new Map();
  for (const [body, s] of ended) if (s.left > 0) output(s.level, `${body.slice(0, -1)},"repeated":${s.left}}`);
}

function writeLine(level: Level, body: string): void {
  let s = seen.get(body);
  if (!s) {
    if (seen.size >= REPEAT_KEYS) endWindow();
    seen.set(body, (s = { level, count: 0, left: 0 }));
    windowTimer ??= setTimeout(endWindow, repeatWindowMs).unref();
  }
  if (++s.count > repeatLimit) {
    s.left++;
    return;
  }
  output(level, body);
}

/** A logger whose lines all carry `base` (request id, job id, component). */
export function createLogger(base: Record<string, unknown> = {}): Logger {
  const write = (level: Level, msg: string, fields?: Record<string, unknown>) => {
    if (order[level] < order[threshold]) return;
    writeLine(level, JSON.stringify({ level, msg, ...base, ...fields }, errorReplacer));
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
    child: (fields) => createLogger({ ...base, ...fields }),
  };
}

function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  return value;
}

export const log = createLogger();
