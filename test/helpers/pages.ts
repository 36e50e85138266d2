// Positioned pages for the extraction and lease rule tests: words placed by hand, laid out by the real layout stage.
import type { ExecutionContext } from 'ava';
import { layoutPage, type TextItem, type PageText } from '../../pipelines/documents/layout.ts';
import type { Candidate } from '../../pipelines/extraction/candidates.ts';
import { extractCertificate } from '../../pipelines/extraction/certificate.ts';
import { ground, indexPages } from '../../pipelines/extraction/grounding.ts';

/** A cell [x, y, text], or [x, y, text, width] where the width is not the text's 4.2 pt per character. */
export type PlacedText = [number, number, string] | [number, number, string, number];

/** A text-layer page (letter size) from placed cells: `h` points tall (10 by default), 4.2 pt per character. */
export function textPage(cells: PlacedText[], n = 1, opts: { h?: number; source?: 'text' | 'ocr' } = {}): PageText {
  const source = opts.source ?? 'text';
  const items: TextItem[] = cells.map(([x, y, text, w]) => ({ text, x, y, w: w ?? text.length * 4.2, h: opts.h ?? 10, source }));
  return layoutPage(n, 612, 792, items, source);
}

/** A page of OCR words [x, y, text, h?, engine line?] (4.4 pt per character, `conf` each). */
export function ocrPage(words: [number, number, string, number?, number?][], n = 1, conf = 0.92): PageText {
  const items: TextItem[] = words.map(([x, y, text, h, line]) => ({ text, x, y, w: text.length * 4.4, h: h ?? 7, source: 'ocr', conf, line }));
  return layoutPage(n, 612, 792, items, 'ocr');
}

type Emit = (c: Omit<Candidate, 'source' | 'confidence'> & Partial<Candidate>) => void;

/** Every candidate a finder emits, with the rules' defaults (source rules, confidence 0.9). */
export function collect(fn: (emit: Emit) => void): Candidate[] {
  const out: Candidate[] = [];
  fn((c) => out.push({ source: 'rules', confidence: 0.9, ...c }));
  return out;
}

/** The first value a finder emits for each pointer. */
export function firstValues(fn: (emit: Emit) => void): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  fn((c) => {
    if (!(c.pointer in out)) out[c.pointer] = c.value;
  });
  return out;
}

/** The insurer names (INSURER A, B, …) the certificate extractor reads from `pages`, in order. */
export function certificateInsurerNames(pages: PageText[]): Candidate[] {
  return collect((e) => extractCertificate(pages, e)).filter((c) => /\/certificate\/insurers\/\d+\/name$/.test(c.pointer));
}

/** Asserts that each candidate grounds on `pages` (its value is printed where it cites); a failure names it by `what`. */
export function assertGrounded(t: ExecutionContext, cs: Candidate[], pages: PageText[], what: (c: Candidate) => string = (c) => c.pointer): void {
  const idx = indexPages(pages);
  for (const c of cs) t.true(ground(c, idx).ok, what(c));
}
