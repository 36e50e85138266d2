// The only reader of process.env. Every variable is parsed with zod; all bad ones are reported at once.
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';

const bool = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => v === 'true' || v === '1' || v === 'yes');

const intIn = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
/** A comma-separated list, each item trimmed, empty ones dropped (unset: none). */
const commaList = z
  .string()
  .default('')
  .transform((v) =>
    v
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean),
  );

export const configSchema = z.object({
  PORT: intIn(0, 65535).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  /** Public base URL of the API, used in absolute links (pagination, logo URLs). Defaults to http://localhost:PORT. */
  PUBLIC_URL: z.url().optional(),
  /** Any Postgres 14+; unset → an embedded Postgres whose data lives in DATA_DIR. */
  DATABASE_URL: z.string().startsWith('postgres').optional(),
  /** Connection string of the request (RLS-bound) role; derived from DATABASE_URL when unset. */
  DATABASE_REQUEST_URL: z.string().startsWith('postgres').optional(),
  DATA_DIR: z.string().min(1).default('./.data'),
  /** Where uploads wait while a request is processed (each request's own folder, removed after it). */
  TMP_DIR: z.string().min(1).optional(),
  EMBEDDED_PG_PORT: intIn(1024, 65535).default(54329),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  /** Jobs at once per worker process besides documents: webhook retries, event fan-out, housekeeping. */
  WORKER_CONCURRENCY: intIn(1, 64).default(2),
  /** Text stages of documents at once per worker process (read, extract, complete, compare), in a runner of their own. */
  DOCUMENT_CONCURRENCY: intIn(1, 64).default(3),
  /** OCR pages at once per worker process, in a runner of their own. */
  OCR_CONCURRENCY: intIn(1, 64).default(3),
  /**
   * Document jobs of each kind (text stages, OCR pages) one agency runs at once across all workers (its own queues):
   * keep it under DOCUMENT_CONCURRENCY and OCR_CONCURRENCY so other agencies find a slot. One value everywhere.
   */
  DOCUMENT_JOBS_PER_AGENCY: intIn(1, 64).default(2),
  /** Webhook first attempts in flight at once per worker process (the send loop), apart from every job. */
  WEBHOOK_CONCURRENCY: intIn(1, 1024).default(64),
  /** A worker process whose heartbeats stop this long is presumed dead and its locked jobs are released to the others. */
  WORKER_STALE_AFTER_SECONDS: intIn(2, 3600).default(10),
  OAUTH_TOKEN_TTL_SECONDS: intIn(60, 86_400).default(3600),
  /** Length of the rate-limit window in seconds (60 in production; tests shorten it). */
  RATE_LIMIT_WINDOW_SECONDS: intIn(1, 86_400).default(60),
  RATE_LIMIT_TOKEN_PER_WINDOW: intIn(1, 100_000).default(10),
  RATE_LIMIT_V1_PER_WINDOW: intIn(1, 100_000).default(60),
  /**
   * Reads of the /api surface (an extraction's or analysis's status, the extraction list) per agency and window:
   * their own budget, so polling a submission never spends the plan's document submissions (SPEC §8).
   */
  RATE_LIMIT_API_READS_PER_WINDOW: intIn(1, 100_000).default(300),
  /** Largest accepted upload in bytes (SPEC §8: 10 MB). */
  MAX_UPLOAD_BYTES: intIn(1024, 100 * 1024 * 1024).default(10 * 1024 * 1024),
  /** Safety bound on a document's pages (a whole policy packet is read; no real one comes near it). */
  MAX_DOCUMENT_PAGES: intIn(1, 100_000).default(2000),
  /**
   * Wall-clock budget of one stage of a document's reading (its text layer; OCR of one page), in milliseconds: the
   * worker running it is terminated at the deadline and the document ends failed (extraction_failed).
   */
  DOCUMENT_STAGE_BUDGET_MS: intIn(1, 3_600_000).default(180_000),
  /** Largest decoded image accepted for logos and pictures, in pixels (decompression-bomb guard). */
  MAX_IMAGE_PIXELS: intIn(1, 500_000_000).default(40_000_000),
  LLM_BASE_URL: z.url().optional(),
  LLM_MODEL: z.string().min(1).optional(),
  LLM_API_KEY: z.string().min(1).optional(),
  OCR_ENGINE: z.enum(['tesseract.js', 'tesseract-cli']).default('tesseract.js'),
  TESSERACT_PATH: z.string().min(1).default('tesseract'),
  TRUST_PROXY: bool.default(false),
  /** Base64 of 32 bytes that encrypts webhook signing secrets and credentials at rest; default: generated into DATA_DIR. */
  WEBHOOK_SECRET_KEY: z.string().min(40).optional(),
  WEBHOOK_TIMEOUT_MS: intIn(100, 120_000).default(15_000),
  /** Attempts of one delivery before it is marked failed (the default schedule spans about 27 hours). */
  WEBHOOK_MAX_ATTEMPTS: intIn(1, 20).default(8),
  /** An endpoint failing without a success for this long is disabled. */
  WEBHOOK_DISABLE_AFTER_HOURS: intIn(1, 24 * 30).default(120),
  /** Hosts, IPs or CIDRs webhooks may reach although they are not public (comma-separated), e.g. 127.0.0.1. */
  WEBHOOK_ALLOW_HOSTS: commaList,
  /** Waits in seconds before attempts 2, 3, … (comma-separated); empty = the default schedule of about 27 hours. */
  WEBHOOK_RETRY_SCHEDULE: commaList
    .transform((a) => a.map(Number))
    .refine((a) => a.every((n) => Number.isFinite(n) && n > 0), 'must be positive numbers of seconds, comma-separated'),
  /** Base URL of the host that serves signed file links ({files_url}); defaults to PUBLIC_URL. */
  FILES_URL: z.url().optional(),
  /** Lifetime of a signed file link (document_link, upload and ACORD archive URLs) in seconds. */
  FILE_LINK_TTL_SECONDS: intIn(60, 7 * 86_400).default(3600),
  /** Serve the GraphiQL IDE (Ruru) on GET /graphql for browsers; queries still need an operator or analyst token. */
  GRAPHIQL: bool.default(false),
  /** Also serve GET /metrics without credentials on this port (bind it to a private network). */
  METRICS_PORT: intIn(1, 65535).optional(),
  /** PostGraphile/Grafast mode: production (default) or development (extra checks, slower planning). */
  GRAPHILE_ENV: z.enum(['production', 'development']).default('production'),
  /** Where stored files live: `fs` (DATA_DIR/blobs, one machine) or `s3` (any S3-compatible store, shared by every machine). */
  BLOB_STORE: z.enum(['fs', 's3']).default('fs'),
  S3_BUCKET: z.string().min(3).optional(),
  S3_REGION: z.string().min(1).default('us-east-1'),
  /** Endpoint of a non-AWS store (MinIO, …); unset = AWS. */
  S3_ENDPOINT: z.url().optional(),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  /** Bucket in the path instead of the host name (most non-AWS stores); default true when S3_ENDPOINT is set. */
  S3_FORCE_PATH_STYLE: bool.optional(),
  /** Key prefix inside the bucket, e.g. `svc/`. */
  S3_PREFIX: z
    .string()
    .regex(/^[a-z0-9-/]*$/)
    .optional(),
  /** Days uploaded documents and their extracted data are kept (an agency may have its own period). */
  DOCUMENT_RETENTION_DAYS: intIn(1, 3650).default(30),
  /** How long POST /api/analyze waits for the result before answering 202 with the analysis id. */
  ANALYZE_DEADLINE_MS: intIn(0, 300_000).default(25_000),
  /** Lifetime of a compliance report link made by POST /api/analyses/{id}/report-links, in seconds (30 days). */
  REPORT_LINK_TTL_SECONDS: intIn(60, 366 * 86_400).default(30 * 86_400),
  /** Opens of one report link (page or PDF) accepted per client address per window (RATE_LIMIT_WINDOW_SECONDS). */
  RATE_LIMIT_REPORT_OPENS_PER_WINDOW: intIn(1, 100_000).default(60),
  /** Chromium that renders a report's PDF from its HTML; when the file is absent, a pdf-lib layout of the same report. */
  REPORT_CHROMIUM_PATH: z.string().min(1).default('/usr/bin/chromium'),
  /** Base URL of the host that serves hosted forms ({app_url}); defaults to PUBLIC_URL. */
  APP_URL: z.url().optional(),
  /** Default lifetime of a signed form link made by POST /v2/forms/{id}/links, in seconds (30 days). */
  FORM_LINK_TTL_SECONDS: intIn(60, 366 * 86_400).default(30 * 86_400),
  /** Lifetime of a one-time dashboard sign-in link (POST /v1/agents/{id}/dashboard-link), in seconds. */
  DASHBOARD_LINK_TTL_SECONDS: intIn(30, 3600).default(300),
  /** A dashboard session ends after this many seconds without a request. */
  DASHBOARD_SESSION_IDLE_SECONDS: intIn(60, 7 * 86_400).default(3600),
  /** Hours a file uploaded to a hosted form is kept while no submission uses it and no live draft holds it (a draft's files live as long as the draft). */
  HOSTED_UPLOAD_RETENTION_HOURS: intIn(1, 24 * 366).default(48),
  /**
   * Hours a hosted form saved part-way (a draft) stays resumable after its last save; then the draft and the files it
   * holds are purged by form_drafts__purge. Resume links expire with it (7 days).
   */
  FORM_DRAFT_TTL_HOURS: intIn(1, 24 * 366).default(7 * 24),
  /** Largest saved answers of one draft, in bytes of JSON (files count by reference only): a larger save is a 413. */
  FORM_DRAFT_MAX_BYTES: intIn(1024, 900_000).default(256 * 1024),
  /** Draft saves accepted per hosted form link (or draft) and client address per window (the page saves as the consumer types). */
  RATE_LIMIT_DRAFT_SAVES_PER_WINDOW: intIn(1, 100_000).default(120),
  /** Uploads accepted per hosted form link (signed, or the agent's plain link) and client address per window. */
  RATE_LIMIT_UPLOADS_PER_WINDOW: intIn(1, 100_000).default(20),
  /** Submissions accepted per hosted form link (signed, or the agent's plain link) and client address per window. */
  RATE_LIMIT_SUBMISSIONS_PER_WINDOW: intIn(1, 100_000).default(10),
  /** Production URLs must use https unless their host is allow-listed. */
  WEBHOOK_REQUIRE_HTTPS: bool.default(true),
});

export type Config = z.infer<typeof configSchema> & {
  dataDir: string;
  publicUrl: string;
  filesUrl: string;
  tmpDir: string;
  /** Base URL of hosted forms ({app_url}). */
  appUrl: string;
  /** The PATH external commands (the tesseract CLI) are looked up in; pipelines get it as an option. */
  commandPath: string | undefined;
};

/** Parse an environment; throws a ConfigError listing every bad variable. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = configSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  const c = parsed.data;
  if (c.BLOB_STORE === 's3' && !c.S3_BUCKET) throw new ConfigError('invalid configuration:\n  S3_BUCKET: required when BLOB_STORE=s3');
  const publicUrl = (c.PUBLIC_URL ?? `http://localhost:${c.PORT}`).replace(/\/+$/, '');
  return {
    ...c,
    dataDir: path.resolve(c.DATA_DIR),
    tmpDir: path.resolve(c.TMP_DIR ?? os.tmpdir()),
    publicUrl,
    filesUrl: (c.FILES_URL ?? publicUrl).replace(/\/+$/, ''),
    appUrl: (c.APP_URL ?? publicUrl).replace(/\/+$/, ''),
    commandPath: env.PATH || undefined,
  };
}

export class ConfigError extends Error {}

let cached: Config | undefined;

/** The process configuration; on a bad environment prints every problem and exits. */
export function config(): Config {
  if (cached) return cached;
  try {
    cached = parseConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(78);
    }
    throw err;
  }
  return cached;
}

/**
 * Grafast reads GRAPHILE_ENV from the environment when it is first imported (and warns on stderr when it is
 * unset); /graphql calls this before importing PostGraphile so the parsed setting is what it sees.
 */
export function exportGraphileEnv(c: Config): void {
  process.env.GRAPHILE_ENV ??= c.GRAPHILE_ENV;
}
