// Positioned text: items (pdf.js text runs, AcroForm values or OCR words) grouped into cells, lines and
// blocks in reading order. Coordinates are PDF points with the origin at the top-left of the page.

export type TextSource = 'text' | 'acroform' | 'ocr';

export interface TextItem {
  text: string;
  x: number;
  y: number;
  w: number;
  h: number;
  source: TextSource;
  /** OCR word confidence 0..1; 1 for a text layer. */
  conf?: number;
  /** The OCR engine's line number: words of one engine line stay together. */
  line?: number;
}

/** A run of items on one line without a column-sized gap between them. */
export interface Cell {
  text: string;
  x: number;
  y: number;
  w: number;
  h: number;
  conf: number;
  source: TextSource;
}

export interface Line {
  text: string;
  x: number;
  y: number;
  w: number;
  h: number;
  cells: Cell[];
}

export interface Block {
  text: string;
  x: number;
  y: number;
  w: number;
  h: number;
  lines: Line[];
}

export interface FormField {
  name: string;
  value: string;
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface PageText {
  /** 1-based page number. */
  page: number;
  width: number;
  height: number;
  source: 'text' | 'ocr' | 'empty';
  lines: Line[];
  blocks: Block[];
  /** Lines joined by newlines; cells separated by two spaces. */
  text: string;
  /** Mean OCR confidence 0..1 (1 for a text layer). */
  confidence: number;
  fields: FormField[];
}

const median = (xs: number[]) => {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

/** Group items into lines (by vertical overlap), cells (by horizontal gap) and blocks (by vertical gap). */
export function layoutPage(
  page: number,
  width: number,
  height: number,
  items: TextItem[],
  source: PageText['source'],
  fields: FormField[] = [],
): PageText {
  let usable = items.filter((i) => i.text.trim() !== '' && i.h > 0);
  // OCR noise: low-confidence specks and boxes far taller than text would chain lines together.
  const typical = median(usable.map((i) => i.h)) || 10;
  usable = usable.filter((i) => i.source !== 'ocr' || ((i.conf ?? 1) >= 0.25 && /[A-Za-z0-9$]/.test(i.text) && i.h <= typical * 3.5));
  usable.sort((a, b) => a.y - b.y || a.x - b.x);
  const rows: TextItem[][] = usable.length > 0 && usable.every((i) => i.line !== undefined) ? rowsFromEngineLines(usable) : rowsByOverlap(usable);
  return buildPage(page, width, height, rows, source, fields);
}

/**
 * OCR: trust the engine's line segmentation (robust to skew and specks), then put engine lines whose
 * baselines agree on one row (a label and its value are often separate engine lines).
 */
function rowsFromEngineLines(items: TextItem[]): TextItem[][] {
  const byLine = new Map<number, TextItem[]>();
  for (const it of items) {
    const l = byLine.get(it.line!) ?? [];
    byLine.set(it.line!, l);
    l.push(it);
  }
  const segs = [...byLine.values()].map((words) => ({ words, bottom: median(words.map((w) => w.y + w.h)), h: median(words.map((w) => w.h)) }));
  segs.sort((a, b) => a.bottom - b.bottom);
  const rows: { words: TextItem[]; bottom: number; h: number }[] = [];
  for (const s of segs) {
    const last = rows[rows.length - 1];
    if (last && Math.abs(s.bottom - last.bottom) < 0.45 * Math.min(s.h, last.h)) last.words.push(...s.words);
    else rows.push({ ...s, words: [...s.words] });
  }
  return rows.map((r) => r.words);
}

function rowsByOverlap(usable: TextItem[]): TextItem[][] {
  const rows: TextItem[][] = [];
  const rowBox: { top: number; bottom: number }[] = [];
  for (const it of usable) {
    let placed = false;
    // Only the last few rows can overlap an item sorted by top.
    for (let r = rows.length - 1; r >= Math.max(0, rows.length - 4); r--) {
      const box = rowBox[r];
      const overlap = Math.min(box.bottom, it.y + it.h) - Math.max(box.top, it.y);
      if (overlap >= 0.5 * Math.min(it.h, box.bottom - box.top)) {
        rows[r].push(it);
        // Grow the row only by items of similar height, so one tall box cannot swallow the next line.
        if (it.h <= 1.3 * (box.bottom - box.top)) {
          box.top = Math.min(box.top, it.y);
          box.bottom = Math.max(box.bottom, it.y + it.h);
        }
        placed = true;
        break;
      }
    }
    if (!placed) {
      rows.push([it]);
      rowBox.push({ top: it.y, bottom: it.y + it.h });
    }
  }
  return rows;
}

function buildPage(page: number, width: number, height: number, rows: TextItem[][], source: PageText['source'], fields: FormField[]): PageText {
  const lines: Line[] = rows.map((row) => {
    row.sort((a, b) => a.x - b.x);
    const h = median(row.map((i) => i.h));
    const cells: Cell[] = [];
    let cur: TextItem[] = [];
    const flush = () => {
      if (cur.length === 0) return;
      const x = cur[0].x;
      const right = Math.max(...cur.map((i) => i.x + i.w));
      const y = Math.min(...cur.map((i) => i.y));
      const bottom = Math.max(...cur.map((i) => i.y + i.h));
      let text = '';
      for (let k = 0; k < cur.length; k++) {
        const t = cur[k].text;
        if (k > 0) {
          const gap = cur[k].x - (cur[k - 1].x + cur[k - 1].w);
          if (gap > 0.15 * h && !text.endsWith(' ') && !t.startsWith(' ')) text += ' ';
        }
        text += t;
      }
      const confs = cur.map((i) => i.conf ?? 1);
      cells.push({
        text: text.replace(/\s+/g, ' ').trim(),
        x,
        y,
        w: right - x,
        h: bottom - y,
        conf: confs.reduce((a, b) => a + b, 0) / confs.length,
        source: cur.some((i) => i.source === 'acroform') ? 'acroform' : cur[0].source,
      });
      cur = [];
    };
    for (const it of row) {
      const prev = cur[cur.length - 1];
      if (prev) {
        const gap = it.x - (prev.x + prev.w);
        if (gap > Math.max(h * 1.1, 6) || it.source !== prev.source) flush();
      }
      cur.push(it);
    }
    flush();
    const x = Math.min(...cells.map((c) => c.x));
    const y = Math.min(...cells.map((c) => c.y));
    const right = Math.max(...cells.map((c) => c.x + c.w));
    const bottom = Math.max(...cells.map((c) => c.y + c.h));
    return { text: cells.map((c) => c.text).filter(Boolean).join('  '), x, y, w: right - x, h: bottom - y, cells };
  });
  const blocks: Block[] = [];
  for (const line of lines) {
    const last = blocks[blocks.length - 1];
    const prevLine = last?.lines[last.lines.length - 1];
    if (prevLine && line.y - (prevLine.y + prevLine.h) < 1.0 * Math.max(line.h, prevLine.h)) {
      last.lines.push(line);
      const right = Math.max(last.x + last.w, line.x + line.w);
      const bottom = line.y + line.h;
      last.x = Math.min(last.x, line.x);
      last.w = right - last.x;
      last.h = bottom - last.y;
      last.text += `\n${line.text}`;
    } else {
      blocks.push({ text: line.text, x: line.x, y: line.y, w: line.w, h: line.h, lines: [line] });
    }
  }
  const confs = lines.flatMap((l) => l.cells.map((c) => c.conf));
  return {
    page,
    width,
    height,
    source: lines.length === 0 ? 'empty' : source,
    lines,
    blocks,
    text: lines.map((l) => l.text).join('\n'),
    confidence: confs.length ? confs.reduce((a, b) => a + b, 0) / confs.length : 0,
    fields,
  };
}

/** Whether a page's text layer is worth using (otherwise it goes to OCR). */
export function hasUsableText(items: TextItem[]): boolean {
  const chars = items.reduce((n, i) => n + i.text.replace(/\s/g, '').length, 0);
  return chars >= 25;
}
