// The analysts' report of `svc eval --labels … --html FILE`: one self-contained HTML file with accuracy per
// field (with counts), per document kind and text vs scan, and for each miss the expected and extracted
// values, the pages, and a crop of the page region around the cited value (pages rendered with pdf.js in
// the PDF worker, cropped with sharp, embedded as data: URLs) so an analyst can judge label vs extractor; and the
// eval history as one small inline SVG chart per field (eval_charts.ts) with every figure in a table too.
import fs from 'node:fs';
import sharp from 'sharp';
import { renderPagePreview } from '../../pipelines/documents/index.ts';
import { normaliseText } from '../../pipelines/extraction/normalise.ts';
import { accuracy, type FieldComparison, type Tally } from '../../pipelines/extraction/labels.ts';
import { tallyByFieldAndKind, type LabelledRun, type summarise } from './eval_summary.ts';
import { byField, correctionsOf, fieldChart, type RunFigures } from './eval_charts.ts';
import { CORRECTION_WEEKS, type History } from './eval_history.ts';

const esc = (s: unknown) => String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
const pct = (t: Tally) => `${(accuracy(t) * 100).toFixed(1)}%`;
const show = (v: unknown) => (v === null || v === undefined ? '<i>null</i>' : esc(typeof v === 'string' ? v : JSON.stringify(v)));

interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** Where on the page a value is printed: the first line holding the value (or the cited text), in page points. */
export function locate(run: LabelledRun, page: number, values: unknown[], cited?: string): Box | undefined {
  const p = run.result?._raw.pages.find((x) => x.page === page);
  if (!p) return undefined;
  const wanted = [
    ...values.filter((v) => v !== null && v !== undefined).map((v) => normaliseText(String(v))),
    ...(cited ? cited.split('\n').map(normaliseText) : []),
  ].filter((v) => v.length >= 2);
  for (const w of wanted) {
    const hit =
      p.lines.find((l) => normaliseText(l.text).includes(w)) ?? p.lines.find((l) => w.includes(normaliseText(l.text)) && normaliseText(l.text).length > 6);
    if (hit) return { x: hit.x, y: hit.y, w: hit.w, h: hit.h };
  }
  return undefined;
}

/** A JPEG crop (data: URL) of a band of the page around `box`, or of the page top when the value was not found. */
async function crop(
  bytes: Uint8Array,
  page: number,
  box: Box | undefined,
  cache: Map<number, Promise<{ img: Buffer; w: number; h: number; pw: number }>>,
): Promise<string | undefined> {
  let pr = cache.get(page);
  if (!pr) {
    pr = (async () => {
      // Scans come as the stored full-resolution JPEG: shrunk once, so each crop works on a small image.
      const r = await renderPagePreview(bytes, 'application/pdf', page, { width: 1000 });
      return { img: r.png, w: r.width, h: r.height, pw: r.pageWidth };
    })();
    cache.set(page, pr);
  }
  const { img, w, h, pw } = await pr;
  const k = w / pw; // pixels per point
  const margin = 60 * k;
  const top = box ? Math.max(0, Math.round(box.y * k - margin)) : 0;
  const bottom = box ? Math.min(h, Math.round((box.y + box.h) * k + margin)) : Math.min(h, Math.round(h * 0.35));
  let base = img;
  if (box) {
    // Outline the value so the eye finds it at once (drawn on the whole page, then cropped).
    const rect = Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><rect x="${Math.max(0, box.x * k - 4)}" y="${Math.max(0, box.y * k - 4)}" width="${box.w * k + 8}" height="${box.h * k + 8}" fill="none" stroke="#d00" stroke-width="3"/></svg>`,
    );
    base = await sharp(img)
      .composite([{ input: rect, top: 0, left: 0 }])
      .png()
      .toBuffer();
  }
  const out = sharp(base).extract({ left: 0, top, width: w, height: Math.max(1, bottom - top) });
  const jpg = await out
    .resize({ width: Math.min(w, 900), withoutEnlargement: true })
    .jpeg({ quality: 70 })
    .toBuffer();
  return `data:image/jpeg;base64,${jpg.toString('base64')}`;
}

/** This run alone, per field, when it was not recorded in a history. */
function thisRunOnly(runs: LabelledRun[]): Map<string, RunFigures[]> {
  const out = new Map<string, RunFigures>();
  const recordedAt = new Date();
  for (const t of tallyByFieldAndKind(runs)) {
    let f = out.get(t.field);
    if (!f) out.set(t.field, (f = { run: 0, name: 'this run', recordedAt, compared: 0, correct: 0, highConfidence: 0, highConfidenceWrong: 0 }));
    f.compared += t.compared;
    f.correct += t.correct;
    f.highConfidence += t.high_confidence;
    f.highConfidenceWrong += t.high_confidence_wrong;
  }
  return new Map([...out].map(([field, f]) => [field, [f]]));
}

/** The history section: a chart per field of this run, the charts' figures, and calibration on real traffic. */
function historyHtml(runs: LabelledRun[], fields: string[], history: History): string {
  const recorded = byField(history.points);
  const current = thisRunOnly(runs);
  const series = fields.map((f) => ({ field: f, runs: recorded.get(f) ?? current.get(f) ?? [] })).filter((x) => x.runs.length);
  const parts: string[] = [];
  parts.push(
    `<h2 id="history">History per field</h2><p>${esc(history.note)}. Each chart shows, over the ${history.points.length ? 'recorded runs (the last 20)' : 'run'}, the accuracy of a field (solid line, circles) and how often the values the engine cited at confidence 0.9 or more were wrong (dashed line, squares), on one scale from 0 to 100%. The same figures are in the table under the charts.</p><div class="charts">`,
  );
  series.forEach(({ field, runs: rs }, i) => {
    const real = correctionsOf(field, history.corrections);
    const traffic = real.high
      ? `On real traffic (reviews of agencies that share them, last ${CORRECTION_WEEKS} weeks): ${real.wrong} of ${real.high} values at confidence 0.9 or more corrected (${((real.wrong / real.high) * 100).toFixed(1)}%).`
      : real.reviewed
        ? `On real traffic: ${real.reviewed} reviewed, none at confidence 0.9 or more.`
        : '';
    parts.push(
      `<figure><figcaption><b>${esc(field)}</b></figcaption>${fieldChart(`chart-${i}`, field, rs)}${traffic ? `<p class="traffic">${esc(traffic)}</p>` : ''}</figure>`,
    );
  });
  parts.push('</div><h3>The charts’ figures</h3><table><caption>Accuracy and calibration of each field per run</caption>');
  parts.push(
    '<tr><th scope="col">field</th><th scope="col">run</th><th scope="col">recorded</th><th scope="col">accuracy</th><th scope="col">correct / compared</th><th scope="col">wrong at confidence ≥ 0.9</th></tr>',
  );
  for (const { field, runs: rs } of series)
    for (const r of rs)
      parts.push(
        `<tr><th scope="row">${esc(field)}</th><td>${esc(r.name)}</td><td>${r.recordedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC</td><td class="n">${((r.correct / r.compared) * 100).toFixed(1)}%</td><td class="n">${r.correct} / ${r.compared}</td><td class="n">${r.highConfidence ? `${((r.highConfidenceWrong / r.highConfidence) * 100).toFixed(1)}% (${r.highConfidenceWrong} / ${r.highConfidence})` : '–'}</td></tr>`,
      );
  parts.push('</table>');
  if (history.corrections.length) {
    parts.push(
      `<h3>Calibration on real traffic</h3><table><caption>Reviewers’ decisions per week and field (agencies that share reviewed documents)</caption><tr><th scope="col">week of</th><th scope="col">field</th><th scope="col">reviewed</th><th scope="col">at confidence ≥ 0.9</th><th scope="col">of those corrected</th></tr>`,
    );
    for (const c of history.corrections)
      parts.push(
        `<tr><td>${esc(c.week)}</td><th scope="row">${esc(c.field)}</th><td class="n">${c.reviewed}</td><td class="n">${c.high_confidence}</td><td class="n">${c.high_confidence ? `${c.high_confidence_wrong} (${((c.high_confidence_wrong / c.high_confidence) * 100).toFixed(1)}%)` : '–'}</td></tr>`,
      );
    parts.push('</table>');
  }
  return parts.join('\n');
}

/** Write the report to `file`; `history` is the recorded history the charts draw (without it, this run alone). */
export async function writeHtmlReport(
  file: string,
  runs: LabelledRun[],
  s: ReturnType<typeof summarise>,
  history: History = { points: [], corrections: [], note: 'history: not recorded' },
): Promise<void> {
  const parts: string[] = [];
  parts.push(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Extraction eval</title><style>
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}
td.n{text-align:right;font-variant-numeric:tabular-nums}.bad{background:#fdd}.ok{background:#dfd}.miss{border:1px solid #ccc;margin:1em 0;padding:.5em 1em}
.miss img{max-width:100%;border:1px solid #999;display:block;margin-top:.5em}code{background:#f4f4f4;padding:0 3px}h2{margin-top:2em}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(360px,1fr));gap:1em}.charts figure{margin:0;border:1px solid #ddd;padding:.5em}
.charts svg{max-width:100%;height:auto;display:block}figcaption{font-size:14px;margin-bottom:.3em}.traffic{font-size:13px;margin:.3em 0 0}caption{text-align:left;font-weight:600;padding:.3em 0}</style></head><body><main>`);
  parts.push(
    `<h1>Extraction against hand labels</h1><p>${s.documents} documents; overall ${pct(s.overall)} (${s.overall.ok}/${s.overall.n}); text ${pct(s.text)} (${s.text.ok}/${s.text.n}); scans ${pct(s.scan)} (${s.scan.ok}/${s.scan.n}); statuses ${esc(
      Object.entries(s.statuses)
        .map(([k, v]) => `${k} ${v}`)
        .join(', '),
    )}; median time per text document ${(s.medianTextMs / 1000).toFixed(2)} s.</p>`,
  );
  parts.push('<h2>Per field</h2><table><tr><th>field</th><th>accuracy</th><th>correct</th><th>labelled</th><th>text</th><th>scan</th></tr>');
  for (const [f, t] of Object.entries(s.fields).sort()) {
    const tt = s.fieldsText[f];
    const ts = s.fieldsScan[f];
    parts.push(
      `<tr class="${accuracy(t) >= 0.95 ? 'ok' : 'bad'}"><td>${esc(f)}</td><td class="n">${pct(t)}</td><td class="n">${t.ok}</td><td class="n">${t.n}</td><td class="n">${tt ? `${pct(tt)} (${tt.ok}/${tt.n})` : '-'}</td><td class="n">${ts ? `${pct(ts)} (${ts.ok}/${ts.n})` : '-'}</td></tr>`,
    );
  }
  parts.push('</table>');
  parts.push(historyHtml(runs, Object.keys(s.fields).sort(), history));
  parts.push('<h2>Per document kind</h2><table><tr><th>kind</th><th>accuracy</th><th>correct</th><th>labelled</th></tr>');
  for (const [k, t] of Object.entries(s.kinds))
    parts.push(`<tr><td>${esc(k)}</td><td class="n">${pct(t)}</td><td class="n">${t.ok}</td><td class="n">${t.n}</td></tr>`);
  parts.push(
    '</table><h2>Documents</h2><table><tr><th>file</th><th>kind</th><th>read as</th><th>status</th><th>method</th><th>accuracy</th><th>time</th></tr>',
  );
  for (const r of runs) {
    const t = { n: r.comparisons.length, ok: r.comparisons.filter((c) => c.ok).length };
    parts.push(
      `<tr><td><a href="#${esc(r.file)}">${esc(r.file)}</a></td><td>${esc(r.docKind)}</td><td>${r.scan ? 'scan' : 'text'}</td><td>${esc(r.status)}</td><td>${esc(r.method)}</td><td class="n">${pct(t)}</td><td class="n">${(r.ms / 1000).toFixed(2)} s</td></tr>`,
    );
  }
  parts.push('</table><h2>Misses</h2>');
  for (const r of runs) {
    const misses = r.comparisons.filter((c) => !c.ok);
    if (misses.length === 0 && !r.error) continue;
    parts.push(`<h3 id="${esc(r.file)}">${esc(r.file)}</h3>`);
    if (r.error) parts.push(`<p class="bad">${esc(r.error)}</p>`);
    let bytes: Uint8Array | undefined;
    try {
      bytes = new Uint8Array(fs.readFileSync(r.path));
    } catch {
      bytes = undefined;
    }
    const cache = new Map<number, Promise<{ img: Buffer; w: number; h: number; pw: number }>>();
    for (const c of misses) parts.push(await missHtml(r, c, bytes, cache));
  }
  parts.push('</main></body></html>');
  fs.writeFileSync(file, parts.join('\n'));
}

async function missHtml(
  r: LabelledRun,
  c: FieldComparison,
  bytes: Uint8Array | undefined,
  cache: Map<number, Promise<{ img: Buffer; w: number; h: number; pw: number }>>,
): Promise<string> {
  const citation = c.pointer ? r.result?.extracted_data.citations[c.pointer] : undefined;
  const page = c.gotPage ?? c.expectedPage ?? 1;
  // The crop shows where the extractor read its value, or else where the label says the value is.
  const box = locate(r, page, c.got !== null ? [c.got] : [c.expected], citation?.text);
  let img = '';
  if (bytes) {
    try {
      const url = await crop(bytes, page, box, cache);
      if (url) img = `<img alt="page ${page} around the value" src="${url}">`;
    } catch (e) {
      img = `<p><i>no crop: ${esc((e as Error).message)}</i></p>`;
    }
  }
  const why = citation ? `<br>cited (${esc(citation.source)}, confidence ${citation.confidence}): <code>${esc(citation.text.slice(0, 300))}</code>` : '';
  return `<div class="miss"><b>${esc(c.where)}</b> (${esc(c.field)}): expected ${show(c.expected)} on p.${c.expectedPage ?? '-'}, got ${show(c.got)} on p.${c.gotPage ?? '-'}${why}${box ? '' : '<br><i>value not located on the page; showing the page top</i>'}${img}</div>`;
}
