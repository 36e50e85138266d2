// A compliance report as PDF. Two engines: `chromium` prints the report's own HTML with a real browser engine
// (playwright-core driving the Chromium binary it is given), so the PDF is the page; `pdf-lib` lays the same
// report model out in plain text rows when no browser is installed. Text stays extractable either way.
import { z } from 'zod';
import { PDFDocument, StandardFonts, rgb, type PDFFont, type PDFPage } from 'pdf-lib';
import { wrapToWidth } from '../acord/render.ts';
import { overallWords, statusWords, type ReportModel } from './model.ts';

export const paperSizes = ['a4', 'letter'] as const;
export type Paper = (typeof paperSizes)[number];

export const reportPdfOptionsSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('chromium'), executablePath: z.string().min(1), paper: z.enum(paperSizes) }).strict(),
  z.object({ kind: z.literal('pdf-lib'), paper: z.enum(paperSizes) }).strict(),
]);
export type ReportPdfOptions = z.infer<typeof reportPdfOptionsSchema>;

/** Render the report: `html` (a complete document with its styles inlined) for chromium, `model` for pdf-lib. */
export async function renderReportPdf(input: { html: string; model: ReportModel }, options: ReportPdfOptions): Promise<Buffer> {
  const o = reportPdfOptionsSchema.parse(options);
  return o.kind === 'chromium' ? printWithChromium(input.html, o.executablePath, o.paper) : layOut(input.model, o.paper);
}

/** Browsers printing at once in this process (each is a few hundred MB); further PDFs wait their turn. */
const MAX_PRINTING = 2;
let printing = 0;
const waiting: Array<() => void> = [];

async function printWithChromium(html: string, executablePath: string, paper: Paper): Promise<Buffer> {
  // A finishing print hands its slot straight to the next in line, so no newcomer slips in between.
  if (printing >= MAX_PRINTING) await new Promise<void>((resolve) => waiting.push(resolve));
  else printing++;
  try {
    return await print(html, executablePath, paper);
  } finally {
    const next = waiting.shift();
    if (next) next();
    else printing--;
  }
}

/** Headless Chromium's flags here: no sandbox (it runs as the service's user, root in containers), quiet, offline. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--headless',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-dev-shm-usage',
];

async function print(html: string, executablePath: string, paper: Paper): Promise<Buffer> {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
  try {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    // Nothing leaves the machine: the document carries its styles and images inline.
    await page.route('**/*', (route) => (route.request().url().startsWith('data:') ? route.continue() : route.abort()));
    await page.setContent(html, { waitUntil: 'load' });
    await page.emulateMedia({ media: 'print' });
    return await page.pdf({ format: paper === 'a4' ? 'A4' : 'Letter', printBackground: true, preferCSSPageSize: false, margin: MARGINS });
  } finally {
    await browser.close();
  }
}

const MARGINS = { top: '14mm', bottom: '14mm', left: '12mm', right: '12mm' };

// ---- the pdf-lib layout ------------------------------------------------------------------------------

const PAPER_POINTS: Record<Paper, [number, number]> = { a4: [595.28, 841.89], letter: [612, 792] };
const MARGIN = 40;
const BODY_SIZE = 9;
const LINE = 1.35;

/** Characters Helvetica (WinAnsi) cannot draw become their nearest ASCII or '?'. */
function drawable(text: string): string {
  return text
    .replace(/[‘’]/g, "'")
    .replace(/[“”]/g, '"')
    .replace(/[–—]/g, '-')
    .replace(/…/g, '...')
    .replace(/[^\x20-\x7e\xa0-\xff]/g, '?');
}

async function layOut(m: ReportModel, paper: Paper): Promise<Buffer> {
  const doc = await PDFDocument.create();
  doc.setTitle(`Insurance compliance report ${m.analysisId}`);
  doc.setProducer('svc report (pdf-lib layout)');
  const regular = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const [w, h] = PAPER_POINTS[paper];
  const width = w - 2 * MARGIN;
  let page: PDFPage = doc.addPage([w, h]);
  let y = h - MARGIN;

  /** Lines that must stay together (a check's row): a new page when they do not fit. */
  const block = (lines: { text: string; font?: PDFFont; size?: number; indent?: number }[]) => {
    const laid = lines.flatMap((l) => {
      const size = l.size ?? BODY_SIZE;
      const font = l.font ?? regular;
      return wrapToWidth(font, drawable(l.text), size, width - (l.indent ?? 0)).map((t) => ({ t, size, font, indent: l.indent ?? 0 }));
    });
    const need = laid.reduce((s, l) => s + l.size * LINE, 0) + 6;
    if (y - need < MARGIN) {
      page = doc.addPage([w, h]);
      y = h - MARGIN;
    }
    for (const l of laid) {
      y -= l.size * LINE;
      page.drawText(l.t, { x: MARGIN + l.indent, y, size: l.size, font: l.font, color: rgb(0.07, 0.09, 0.15) });
    }
    y -= 6;
  };

  block([{ text: m.agencyName, font: bold, size: 11 }]);
  block([{ text: 'Insurance compliance report', font: bold, size: 18 }]);
  block([
    {
      text: `Overall: ${overallWords[m.status]}. ${m.counts.pass} met, ${m.counts.fail} not met, ${m.counts.warning} to check, ${m.counts.uncertain} uncertain (of ${m.counts.total}).`,
      font: bold,
      size: 11,
    },
    { text: `Judged as of ${m.asOf}. Analysis ${m.analysisId}.` },
    { text: `Property: ${m.lease.property ?? 'not found'}. Tenant: ${m.lease.tenant ?? 'not found'}. Landlord: ${m.lease.landlord ?? 'not found'}.` },
    {
      text: `Policy: ${m.insurance.carrier ?? 'carrier not found'}, ${m.insurance.policyNumber ?? 'number not found'}, ${m.insurance.effective ?? '?'} to ${m.insurance.expiration ?? '?'}.`,
    },
  ]);
  if (m.recommendations.length) {
    block([{ text: 'What to do', font: bold, size: 13 }]);
    for (const r of m.recommendations) block([{ text: `[ ]  ${r}`, indent: 4 }]);
  }
  block([{ text: `The ${m.checks.length} checks`, font: bold, size: 13 }]);
  for (const c of m.checks) {
    block([
      { text: `${c.field}: ${statusWords[c.status]}`, font: bold, size: 10 },
      { text: `Lease requires: ${c.leaseRequired}${c.leasePage ? ` (lease page ${c.leasePage})` : ''}`, indent: 8 },
      ...(c.leaseClause ? [{ text: `"${c.leaseClause}"`, indent: 16 }] : []),
      { text: `Policy shows: ${c.insuranceCoverage}${c.insurancePage ? ` (policy page ${c.insurancePage})` : ''}`, indent: 8 },
      ...(c.insuranceText ? [{ text: `"${c.insuranceText}"`, indent: 16 }] : []),
      ...(c.gap ? [{ text: `Gap: ${c.gap}`, indent: 8 }] : []),
    ]);
  }
  if (m.uncertain.length) {
    block([{ text: 'What was uncertain', font: bold, size: 13 }]);
    for (const u of m.uncertain) block([{ text: `- ${u}`, indent: 4 }]);
  }
  return Buffer.from(await doc.save());
}
