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

/** A logger whose lines all carry `base` (request id, job id, component). */
export function createLogger(base: Record<string, unknown> = {}): Logger {
  const write = (level: Level, msg: string, fields?: Record<string, unknown>) => {
    if (order[level] < order[threshold]) return;
    const line = JSON.stringify({ time: new Date().toISOString(), level, msg, ...base, ...fields }, errorReplacer);
    (stream ?? (level === 'error' || level === 'warn' ? process.stderr : process.stdout)).write(`${line}\n`);
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
