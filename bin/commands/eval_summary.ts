// What a labelled run of `svc eval --labels` is and the figures drawn from it, shared by the text report
// (eval_labels.ts), the HTML report (eval_report.ts) and the documents bench.
import type { EvalHistoryField } from '../../db/queries/analysts.ts';
import type { ExtractionResult } from '../../pipelines/extraction/index.ts';
import { tallyByField, type FieldComparison, type Tally } from '../../pipelines/extraction/labels.ts';

export interface LabelledRun {
  file: string;
  path: string;
  docKind: string;
  /** Whether most pages were read by OCR (a scan) rather than from a text layer. */
  scan: boolean;
  status: string;
  method: string;
  ms: number;
  error?: string;
  comparisons: FieldComparison[];
  result?: ExtractionResult;
}

export const total = (cs: FieldComparison[]): Tally => ({ n: cs.length, ok: cs.filter((c) => c.ok).length });
const median = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] : 0);

/** Summary figures of a labelled run (also used by the bench). */
export function summarise(runs: LabelledRun[]) {
  const all = runs.flatMap((r) => r.comparisons);
  const part = (pred: (r: LabelledRun) => boolean) => runs.filter(pred).flatMap((r) => r.comparisons);
  return {
    documents: runs.length,
    overall: total(all),
    text: total(part((r) => !r.scan)),
    scan: total(part((r) => r.scan)),
    fields: tallyByField(all),
    fieldsText: tallyByField(part((r) => !r.scan)),
    fieldsScan: tallyByField(part((r) => r.scan)),
    kinds: Object.fromEntries([...new Set(runs.map((r) => r.docKind))].sort().map((k) => [k, total(part((r) => r.docKind === k))])),
    statuses: runs.reduce<Record<string, number>>((a, r) => ({ ...a, [r.status]: (a[r.status] ?? 0) + 1 }), {}),
    medianTextMs: median(runs.filter((r) => !r.scan && !r.error).map((r) => r.ms)),
    calibration: calibration(runs),
  };
}

/** How often values are right by their citation's confidence: at or above 0.9 (meant to be trusted) and below. */
function calibration(runs: LabelledRun[]): { high: Tally; low: Tally } {
  const high: FieldComparison[] = [];
  const low: FieldComparison[] = [];
  for (const r of runs)
    for (const c of r.comparisons) {
      const cite = c.pointer ? r.result?.extracted_data.citations[c.pointer] : undefined;
      if (!cite || c.got === null) continue;
      (cite.confidence >= HIGH_CONFIDENCE ? high : low).push(c);
    }
  return { high: total(high), low: total(low) };
}

/** Confidence from which a cited value is meant to be trusted; calibration is how often such values are wrong. */
export const HIGH_CONFIDENCE = 0.9;

/** One field in one document kind of a run: values compared and right, values cited at high confidence and wrong among them (as the eval history keeps it). */
export type FieldKindTally = EvalHistoryField;

/** A run's figures per field and document kind, as the eval history keeps them. */
export function tallyByFieldAndKind(runs: LabelledRun[]): FieldKindTally[] {
  const out = new Map<string, FieldKindTally>();
  for (const r of runs)
    for (const c of r.comparisons) {
      const key = `${c.field}\n${r.docKind}`;
      let t = out.get(key);
      if (!t) out.set(key, (t = { field: c.field, kind: r.docKind, compared: 0, correct: 0, high_confidence: 0, high_confidence_wrong: 0 }));
      t.compared++;
      if (c.ok) t.correct++;
      const cite = c.pointer ? r.result?.extracted_data.citations[c.pointer] : undefined;
      if (cite && c.got !== null && cite.confidence >= HIGH_CONFIDENCE) {
        t.high_confidence++;
        if (!c.ok) t.high_confidence_wrong++;
      }
    }
  return [...out.values()].sort((a, b) => a.field.localeCompare(b.field) || a.kind.localeCompare(b.kind));
}
