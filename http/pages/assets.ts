// The pages' static assets, built by the project's own esbuild at start-up into memory: one entry list for
// scripts (web/*.ts, bundled with the pure pipelines they import, e.g. the form rule engine) and one CSS
// file. Names carry a content hash, so responses are cached for good.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Browser entry points, by name. Add a page's script here (e.g. the agency dashboard). */
export const SCRIPT_ENTRIES = { form: 'web/form.ts', dashboard: 'web/dashboard.ts' } as const;
/** The one stylesheet of every page. */
export const STYLESHEET = 'web/pages.css';

export interface Asset {
  /** URL path, e.g. /assets/form.3f9a1c2b.js */
  url: string;
  type: string;
  body: Buffer;
  /** gzip of body (sent when the client accepts it; also what the bench reports). */
  gzip: Buffer;
}

export interface Assets {
  scripts: Record<keyof typeof SCRIPT_ENTRIES, Asset>;
  stylesheet: Asset;
  byUrl: Map<string, Asset>;
}

function asset(name: string, ext: string, type: string, body: Buffer): Asset {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 10);
  return { url: `/assets/${name}.${hash}.${ext}`, type, body, gzip: gzipSync(body, { level: 9 }) };
}

async function bundle(entry: string, loader: 'ts' | 'css'): Promise<Buffer> {
  const r = await build({
    entryPoints: [path.join(root, entry)],
    bundle: true,
    minify: true,
    write: false,
    format: loader === 'ts' ? 'iife' : undefined,
    target: loader === 'ts' ? ['es2020'] : ['chrome100', 'safari15', 'firefox100'],
    platform: 'browser',
    legalComments: 'none',
    logLevel: 'silent',
  });
  return Buffer.from(r.outputFiles[0].contents);
}

let building: Promise<Assets> | undefined;

/** Build (once per process) and return the assets. */
export function pageAssets(): Promise<Assets> {
  building ??= (async () => {
    const names = Object.keys(SCRIPT_ENTRIES) as (keyof typeof SCRIPT_ENTRIES)[];
    const scripts = Object.fromEntries(
      await Promise.all(names.map(async (n) => [n, asset(n, 'js', 'application/javascript; charset=utf-8', await bundle(SCRIPT_ENTRIES[n], 'ts'))])),
    ) as Assets['scripts'];
    const stylesheet = asset('pages', 'css', 'text/css; charset=utf-8', await bundle(STYLESHEET, 'css'));
    const byUrl = new Map<string, Asset>([...Object.values(scripts), stylesheet].map((a) => [a.url, a]));
    return { scripts, stylesheet, byUrl };
  })();
  building.catch(() => {
    building = undefined;
  });
  return building;
}
