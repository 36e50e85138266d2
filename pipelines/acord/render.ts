// One ACORD form as a PDF: our own layout of the form's fields (sections of labelled boxes, repeating groups
// as tables) with each value printed into its box as page content — filled and flat, with no interactive
// fields to edit by accident. (pdf-lib's AcroForm flattening leaves dangling cross-references that strict
// readers complain about, so values are drawn directly.) Pure: values in, bytes out.
import { PDFDocument, StandardFonts, rgb, type PDFFont, type PDFPage } from 'pdf-lib';
import { ACORD_FORMS, type AcordFieldDef, type AcordFormDef } from './forms.ts';
import type { AcordFormValues } from './map.ts';

export interface FieldBox {
  /** `ACORD90.Applicant.FirstName`, or `ACORD90.Driver[0].LicenseNumber` for a table cell. */
  field: string;
  /** 1-based page number. */
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
  value: string;
}

export interface RenderedForm {
  form_id: string;
  filename: string;
  bytes: Uint8Array;
  /** Where each field was printed (PDF points, origin bottom left), for checks and debugging. */
  boxes: FieldBox[];
}

export interface RenderContext {
  /** Shown in the header: the submission this form was filled from. */
  reference: string;
  /** ISO timestamp printed in the header and stored as the creation date (deterministic output). */
  createdAt: string;
  /** The agency the application goes to. */
  agencyName: string;
}

const PAGE = { width: 612, height: 792 };
const MARGIN = 40;
const CONTENT = PAGE.width - 2 * MARGIN;
const INK = rgb(0.1, 0.12, 0.16);
const MUTED = rgb(0.38, 0.42, 0.48);
const RULE = rgb(0.75, 0.78, 0.82);
const BAND = rgb(0.92, 0.94, 0.96);

// Characters the standard PDF fonts can draw (WinAnsi); anything else prints as "?" rather than failing.
const WIN_ANSI_EXTRA = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');
// Letters without a decomposition to a Latin base letter.
const LATIN_FALLBACK: Record<string, string> = { Ł: 'L', ł: 'l', Đ: 'D', đ: 'd', ı: 'i', Ħ: 'H', ħ: 'h', Ŧ: 'T', ŧ: 't', ĸ: 'k', Ŋ: 'N', ŋ: 'n' };
/** Text the standard fonts can encode: accents kept where Latin-1 has them, the rest replaced. */
export function winAnsi(text: string, multiline = false): string {
  let out = '';
  for (const ch of text.normalize('NFC')) {
    const c = ch.codePointAt(0)!;
    if (ch === '\n' && multiline) out += ch;
    else if (ch === '\n' || ch === '\r' || ch === '\t') out += ' ';
    else if ((c >= 0x20 && c <= 0x7e) || (c >= 0xa0 && c <= 0xff) || WIN_ANSI_EXTRA.has(ch)) out += ch;
    else {
      const base = LATIN_FALLBACK[ch] ?? ch.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
      out += /^[\x20-\x7e]+$/.test(base) ? base : '?';
    }
  }
  return out;
}

class Writer {
  doc: PDFDocument;
  font: PDFFont;
  bold: PDFFont;
  page!: PDFPage;
  pageNo = 0;
  y = 0;
  boxes: FieldBox[] = [];
  def: AcordFormDef;
  ctx: RenderContext;

  constructor(doc: PDFDocument, font: PDFFont, bold: PDFFont, def: AcordFormDef, ctx: RenderContext) {
    this.doc = doc;
    this.font = font;
    this.bold = bold;
    this.def = def;
    this.ctx = ctx;
  }

  newPage(): void {
    this.page = this.doc.addPage([PAGE.width, PAGE.height]);
    this.pageNo++;
    const top = PAGE.height - MARGIN;
    this.page.drawText(`ACORD ${this.def.id}`, { x: MARGIN, y: top - 14, size: 16, font: this.bold, color: INK });
    this.page.drawText(winAnsi(this.def.title), { x: MARGIN + 92, y: top - 14, size: 13, font: this.font, color: INK });
    const right = winAnsi(`${this.ctx.reference}  ·  ${this.ctx.createdAt.slice(0, 10)}  ·  page ${this.pageNo}`);
    this.page.drawText(right, { x: PAGE.width - MARGIN - this.font.widthOfTextAtSize(right, 8), y: top - 30, size: 8, font: this.font, color: MUTED });
    this.page.drawText(winAnsi(`Prepared for ${this.ctx.agencyName} from an online application`), {
      x: MARGIN,
      y: top - 30,
      size: 8,
      font: this.font,
      color: MUTED,
    });
    this.page.drawLine({ start: { x: MARGIN, y: top - 38 }, end: { x: PAGE.width - MARGIN, y: top - 38 }, thickness: 1, color: INK });
    this.y = top - 50;
  }

  ensure(height: number): void {
    if (this.y - height < MARGIN + 14) this.newPage();
  }

  band(title: string): void {
    this.ensure(18 + 32);
    this.page.drawRectangle({ x: MARGIN, y: this.y - 15, width: CONTENT, height: 15, color: BAND });
    this.page.drawText(winAnsi(title.toUpperCase()), { x: MARGIN + 4, y: this.y - 11, size: 8, font: this.bold, color: INK });
    this.y -= 19;
  }

  /** A labelled box at (x, top) with `value` printed inside it. */
  box(field: string, label: string, value: string, x: number, top: number, width: number, height: number, multiline: boolean): void {
    this.page.drawText(winAnsi(label), { x: x + 1, y: top - 7, size: 6.5, font: this.font, color: MUTED });
    const boxY = top - 9 - height;
    this.cell(field, value, x, boxY, width, height, multiline ? 8 : 9, multiline);
  }

  /** A bordered cell holding `value`: one line shrunk to fit, or wrapped lines. */
  cell(field: string, value: string, x: number, y: number, width: number, height: number, max: number, multiline: boolean): void {
    this.page.drawRectangle({ x, y, width, height, borderColor: RULE, borderWidth: 0.6, color: rgb(1, 1, 1) });
    const text = winAnsi(value, multiline);
    if (multiline) {
      const lines = wrapToWidth(this.font, text, max, width - 8);
      lines
        .slice(0, Math.max(1, Math.floor((height - 4) / (max + 2))))
        .forEach((line, i) => this.page.drawText(line, { x: x + 4, y: y + height - 3 - (i + 1) * (max + 1.5), size: max, font: this.font, color: INK }));
    } else if (text) {
      const size = fitSize(this.font, text, width - 8, max);
      this.page.drawText(text, { x: x + 4, y: y + (height - size) / 2 + 1, size, font: this.font, color: INK });
    }
    this.boxes.push({ field, page: this.pageNo, x, y, width, height, value: text });
  }

  fields(fields: AcordFieldDef[], values: Record<string, string>): void {
    const colW = (CONTENT - 10) / 2;
    let col = 0;
    for (const field of fields) {
      const value = values[field.key] ?? '';
      if (field.wide) {
        const lines = Math.min(6, Math.max(1, Math.ceil(this.font.widthOfTextAtSize(winAnsi(value), 8) / (CONTENT - 8)) + (value.match(/\n/g)?.length ?? 0)));
        const h = lines > 1 ? 10 * lines + 4 : 16;
        if (col === 1) this.y -= 30;
        col = 0;
        this.ensure(h + 12);
        this.box(`ACORD${this.def.id}.${field.key}`, field.label + (field.required ? ' *' : ''), value, MARGIN, this.y, CONTENT, h, lines > 1);
        this.y -= h + 14;
        continue;
      }
      if (col === 0) this.ensure(30);
      this.box(`ACORD${this.def.id}.${field.key}`, field.label + (field.required ? ' *' : ''), value, MARGIN + col * (colW + 10), this.y, colW, 16, false);
      if (col === 1) this.y -= 30;
      col = 1 - col;
    }
    if (col === 1) this.y -= 30;
    this.y -= 4;
  }

  table(groupKey: string, label: string, columns: { key: string; label: string }[], rows: Record<string, string>[]): void {
    this.band(label);
    const w = CONTENT / columns.length;
    const header = () => {
      columns.forEach((c, i) => this.page.drawText(winAnsi(c.label), { x: MARGIN + i * w + 2, y: this.y - 8, size: 6.5, font: this.bold, color: MUTED }));
      this.y -= 11;
    };
    header();
    const shown = rows.length ? rows : [{}];
    shown.forEach((row, r) => {
      if (this.y - 18 < MARGIN + 14) {
        this.newPage();
        this.band(`${label} (continued)`);
        header();
      }
      columns.forEach((c, i) => this.cell(`ACORD${this.def.id}.${groupKey}[${r}].${c.key}`, row[c.key] ?? '', MARGIN + i * w, this.y - 16, w, 16, 8, false));
      this.y -= 16;
    });
    this.y -= 10;
  }
}

/** `text` broken into lines no wider than `width` at `size` (at each newline too); a word wider than that gets a line of its own. */
export function wrapToWidth(font: PDFFont, text: string, size: number, width: number): string[] {
  const lines: string[] = [];
  for (const para of text.split('\n')) {
    let line = '';
    for (const word of para.split(/\s+/).filter(Boolean)) {
      const next = line ? `${line} ${word}` : word;
      if (font.widthOfTextAtSize(next, size) <= width || !line) line = next;
      else {
        lines.push(line);
        line = word;
      }
    }
    lines.push(line);
  }
  return lines;
}

function fitSize(font: PDFFont, text: string, width: number, max: number): number {
  if (!text) return max;
  const at1 = font.widthOfTextAtSize(text, 1);
  return Math.max(4, Math.min(max, Math.floor((width / at1) * 10) / 10));
}

const humanise = (key: string) => key.replace(/\./g, ' · ').replace(/([a-z])([A-Z])/g, '$1 $2');

/** Render one ACORD form filled with `values`; flattened, deterministic for the same input. */
export async function renderAcordForm(formId: string, values: AcordFormValues, ctx: RenderContext): Promise<RenderedForm> {
  const def = ACORD_FORMS[formId];
  if (!def) throw new RangeError(`ACORD ${formId} is not a form this service fills`);
  const doc = await PDFDocument.create({ updateMetadata: false });
  const created = new Date(ctx.createdAt);
  doc.setTitle(`ACORD ${def.id} ${def.title}`);
  doc.setProducer('svc acord pipeline');
  doc.setCreationDate(created);
  doc.setModificationDate(created);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const w = new Writer(doc, font, bold, def, ctx);
  w.newPage();
  const known = new Set<string>();
  for (const section of def.sections) {
    w.band(section.title);
    w.fields(section.fields, values.fields);
    for (const fd of section.fields) known.add(fd.key);
  }
  const extra = Object.keys(values.fields)
    .filter((k) => !known.has(k))
    .sort();
  if (extra.length) {
    w.band('Other information');
    w.fields(
      extra.map((k) => ({ key: k, label: humanise(k) })),
      values.fields,
    );
  }
  const groups = [...def.groups];
  for (const key of Object.keys(values.groups).sort()) {
    if (groups.some((gd) => gd.key === key)) continue;
    const cols = [...new Set(values.groups[key].flatMap((r) => Object.keys(r)))].sort();
    if (cols.length) groups.push({ key, label: humanise(key), columns: cols.map((c) => ({ key: c, label: humanise(c) })) });
  }
  for (const gd of groups)
    w.table(
      gd.key,
      gd.label,
      gd.columns,
      (values.groups[gd.key] ?? []).filter((r) => Object.keys(r).length > 0),
    );
  const bytes = await doc.save({ useObjectStreams: false });
  return { form_id: def.id, filename: `ACORD_${def.id}.pdf`, bytes, boxes: w.boxes };
}
