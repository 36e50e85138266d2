// What tasks need beyond graphile-worker's helpers: configuration and the key of secrets at rest.
import { blobStoreFromConfig, type BlobStore } from '../lib/blobs.ts';
import type { Config } from '../lib/config.ts';
import type { Logger } from '../lib/log.ts';
import type { Metrics } from '../lib/metrics.ts';

export interface TaskDeps {
  cfg: Config;
  log: Logger;
  secretKey: Buffer;
  /** Prometheus metrics of this process (shared with the API when both run in it). */
  metrics?: Metrics;
  /** Where documents are read from (never the uploading process's disk); default: the configured store. */
  blobs?: BlobStore;
}

/** Extraction engine settings from the configuration: OCR engine, upload limits, the stage budget and the LLM when configured. */
export function engineOptions(cfg: Config) {
  const llm = cfg.LLM_BASE_URL && cfg.LLM_MODEL ? { baseURL: cfg.LLM_BASE_URL, model: cfg.LLM_MODEL, apiKey: cfg.LLM_API_KEY } : undefined;
  const engine = cfg.OCR_ENGINE === 'tesseract-cli' ? { kind: 'tesseract-cli' as const, path: cfg.TESSERACT_PATH } : { kind: 'tesseract.js' as const };
  return {
    llm,
    read: {
      maxBytes: cfg.MAX_UPLOAD_BYTES,
      maxPages: cfg.MAX_DOCUMENT_PAGES,
      maxImagePixels: cfg.MAX_IMAGE_PIXELS,
      stageBudgetMs: cfg.DOCUMENT_STAGE_BUDGET_MS,
      ocr: { engine },
    },
  };
}

/** The blob store of the tasks: the injected one, else the configured one. */
export function taskBlobs(deps: TaskDeps): BlobStore {
  return (deps.blobs ??= blobStoreFromConfig(deps.cfg));
}
