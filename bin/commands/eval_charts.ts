// The eval report's history charts: one small inline SVG per field, drawn here on the server (no script, no CDN):
// accuracy over the recorded runs (solid line, circles) and calibration, the share of values cited at confidence
// >= 0.9 that were wrong (dashed line, squares), on one 0-100% scale. Each chart has a title and a description
// that states its figures; the report's table under the charts holds every figure as text.
import type { EvalHistoryPoint, ReviewCalibrationPoint } from '../../db/queries/analysts.ts';

const esc = (s: unknown) => String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The chart's size and its plot area, in SVG units (the chart scales to its box). */
const WIDTH = 340;
const HEIGHT = 150;
const PLOT = { left: 44, right: 326, top: 12, bottom: 104 };
const ACCURACY_COLOUR = '#1d4ed8';
const CALIBRATION_COLOUR = '#b45309';

const pct = (n: number, d: number) => (d ? `${((n / d) * 100).toFixed(1)}%` : '–');
const day = (d: Date) => d.toISOString().slice(0, 10);

/** One recorded run of one field, as the chart and its table show it. */
export interface RunFigures {
  run: number;
  /** How the run is named in the chart ("run 12", or "this run" when it was not recorded). */
  name: string;
  recordedAt: Date;
  compared: number;
  correct: number;
  highConfidence: number;
  highConfidenceWrong: number;
}

/** History points grouped per field, runs oldest first. */
export function byField(points: EvalHistoryPoint[]): Map<string, RunFigures[]> {
  const out = new Map<string, RunFigures[]>();
  for (const p of [...points].sort((a, b) => a.run_id - b.run_id)) {
    const list = out.get(p.field) ?? [];
    list.push({
      run: p.run_id,
      name: `run ${p.run_id}`,
      recordedAt: p.recorded_at,
      compared: p.compared,
      correct: p.correct,
      highConfidence: p.high_confidence,
      highConfidenceWrong: p.high_confidence_wrong,
    });
    out.set(p.field, list);
  }
  return out;
}

/** Real-traffic calibration of one field over the weeks given: values at >= 0.9 reviewed, and corrected. */
export function correctionsOf(field: string, corrections: ReviewCalibrationPoint[]): { high: number; wrong: number; reviewed: number; weeks: number } {
  const mine = corrections.filter((c) => c.field === field);
  return {
    reviewed: mine.reduce((a, c) => a + c.reviewed, 0),
    high: mine.reduce((a, c) => a + c.high_confidence, 0),
    wrong: mine.reduce((a, c) => a + c.high_confidence_wrong, 0),
    weeks: new Set(mine.map((c) => c.week)).size,
  };
}

/** The sentence that describes a field's chart (its SVG desc and the figure's caption say the same). */
export function describe(field: string, runs: RunFigures[]): string {
  const first = runs[0];
  const last = runs[runs.length - 1];
  const acc = (r: RunFigures) => `${pct(r.correct, r.compared)} (${r.correct} of ${r.compared}, ${r.name}, ${day(r.recordedAt)})`;
  const cal = (r: RunFigures) =>
    r.highConfidence ? `${pct(r.highConfidenceWrong, r.highConfidence)} (${r.highConfidenceWrong} of ${r.highConfidence})` : 'none';
  const span = runs.length === 1 ? `one run: accuracy ${acc(last)}` : `${runs.length} runs: accuracy from ${acc(first)} to ${acc(last)}`;
  return `${field}, ${span}; values cited at confidence 0.9 or more that were wrong: ${runs.length === 1 ? cal(last) : `from ${cal(first)} to ${cal(last)}`}.`;
}

/** One field's chart as an inline SVG (`id` makes its title and desc ids unique in the page). */
export function fieldChart(id: string, field: string, runs: RunFigures[]): string {
  const n = runs.length;
  const x = (i: number) => (n === 1 ? (PLOT.left + PLOT.right) / 2 : PLOT.left + ((PLOT.right - PLOT.left) * i) / (n - 1));
  const y = (share: number) => PLOT.bottom - (PLOT.bottom - PLOT.top) * share;
  const fmt = (v: number) => v.toFixed(1);
  const parts: string[] = [];
  parts.push(
    `<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-labelledby="${id}-title ${id}-desc" xmlns="http://www.w3.org/2000/svg">`,
    `<title id="${id}-title">${esc(field)}: accuracy and calibration over ${n} recorded run${n === 1 ? '' : 's'}</title>`,
    `<desc id="${id}-desc">${esc(describe(field, runs))}</desc>`,
  );
  // The scale: 0, 50 and 100% with light rules.
  for (const share of [0, 0.5, 1])
    parts.push(
      `<line x1="${PLOT.left}" x2="${PLOT.right}" y1="${fmt(y(share))}" y2="${fmt(y(share))}" stroke="#d4d4d4" stroke-width="1"/>`,
      `<text x="${PLOT.left - 6}" y="${fmt(y(share) + 4)}" text-anchor="end" font-size="11" fill="#404040">${share * 100}%</text>`,
    );
  // The runs under the axis: the first and the last, by number and day.
  parts.push(
    `<text x="${fmt(x(0))}" y="${PLOT.bottom + 16}" text-anchor="${n === 1 ? 'middle' : 'start'}" font-size="11" fill="#404040">${esc(runs[0].name)} · ${day(runs[0].recordedAt)}</text>`,
  );
  if (n > 1)
    parts.push(
      `<text x="${fmt(x(n - 1))}" y="${PLOT.bottom + 16}" text-anchor="end" font-size="11" fill="#404040">${esc(runs[n - 1].name)} · ${day(runs[n - 1].recordedAt)}</text>`,
    );
  const accuracy = runs.map((r, i) => ({ x: x(i), y: y(r.compared ? r.correct / r.compared : 0), r }));
  const calibration = runs.flatMap((r, i) => (r.highConfidence ? [{ x: x(i), y: y(r.highConfidenceWrong / r.highConfidence), r }] : []));
  if (accuracy.length > 1)
    parts.push(`<polyline fill="none" stroke="${ACCURACY_COLOUR}" stroke-width="2" points="${accuracy.map((p) => `${fmt(p.x)},${fmt(p.y)}`).join(' ')}"/>`);
  if (calibration.length > 1)
    parts.push(
      `<polyline fill="none" stroke="${CALIBRATION_COLOUR}" stroke-width="2" stroke-dasharray="5 3" points="${calibration.map((p) => `${fmt(p.x)},${fmt(p.y)}`).join(' ')}"/>`,
    );
  for (const p of accuracy)
    parts.push(
      `<circle cx="${fmt(p.x)}" cy="${fmt(p.y)}" r="3.5" fill="${ACCURACY_COLOUR}"><title>${esc(p.r.name)}: accuracy ${pct(p.r.correct, p.r.compared)} (${p.r.correct} of ${p.r.compared})</title></circle>`,
    );
  for (const p of calibration)
    parts.push(
      `<rect x="${fmt(p.x - 3.5)}" y="${fmt(p.y - 3.5)}" width="7" height="7" fill="${CALIBRATION_COLOUR}"><title>${esc(p.r.name)}: ${p.r.highConfidenceWrong} of ${p.r.highConfidence} values at confidence 0.9 or more wrong (${pct(p.r.highConfidenceWrong, p.r.highConfidence)})</title></rect>`,
    );
  // The legend: line style and marker as well as colour.
  const ly = HEIGHT - 12;
  parts.push(
    `<line x1="${PLOT.left}" x2="${PLOT.left + 18}" y1="${ly - 4}" y2="${ly - 4}" stroke="${ACCURACY_COLOUR}" stroke-width="2"/><circle cx="${PLOT.left + 9}" cy="${ly - 4}" r="3" fill="${ACCURACY_COLOUR}"/>`,
    `<text x="${PLOT.left + 24}" y="${ly}" font-size="11" fill="#262626">accuracy</text>`,
    `<line x1="${PLOT.left + 100}" x2="${PLOT.left + 118}" y1="${ly - 4}" y2="${ly - 4}" stroke="${CALIBRATION_COLOUR}" stroke-width="2" stroke-dasharray="5 3"/><rect x="${PLOT.left + 106}" y="${ly - 7}" width="6" height="6" fill="${CALIBRATION_COLOUR}"/>`,
    `<text x="${PLOT.left + 124}" y="${ly}" font-size="11" fill="#262626">wrong at confidence ≥ 0.9</text>`,
    '</svg>',
  );
  return parts.join('');
}
