// The pdf-lib layout of a compliance report (the engine used when no Chromium is installed): A4 and US letter,
// every check's name, status and gap in the text pdftotext extracts, each check's lines on one page.
import { execFileSync } from 'node:child_process';
import test from 'ava';
import { PDFDocument } from 'pdf-lib';
import { comparisonFields } from '../../../pipelines/lease/schema.ts';
import type { ReportModel } from '../../../pipelines/reports/model.ts';
import { renderReportPdf } from '../../../pipelines/reports/pdf.ts';

const model: ReportModel = {
  analysisId: '6f1c2c7e-2a4b-4c55-9d1e-0b7f4f3c2a10',
  agencyName: 'Harbor Lane Insurance',
  asOf: '2026-03-10',
  completedAt: '2026-03-10T12:00:00.000Z',
  status: 'non_compliant',
  counts: { total: 15, pass: 7, fail: 7, warning: 1, uncertain: 1 },
  lease: {
    filename: 'lease.pdf',
    property: '200 Commerce Drive, Suite 310',
    tenant: 'Northwind Analytics, Inc.',
    landlord: 'Brickyard Commons LP',
    start: 'Mar 1, 2026',
    end: 'Feb 28, 2029',
  },
  insurance: {
    filename: 'coi.pdf',
    carrier: 'Great Lakes Casualty Company',
    policyNumber: 'CGL-7781-0342',
    insured: 'Northwind',
    effective: 'Feb 15, 2026',
    expiration: 'Mar 1, 2029',
  },
  checks: comparisonFields.map((field, i) => ({
    field,
    status: i % 3 === 0 ? 'fail' : i % 3 === 1 ? 'pass' : 'warning',
    leaseRequired: `requirement ${i + 1}`,
    leasePage: 1 + (i % 4),
    // Long clauses, so checks must move to the next page whole.
    leaseClause: `Tenant shall maintain “coverage ${i + 1}” — ${'with limits not less than the amounts set forth in the Basic Lease Information '.repeat(3)}`,
    insuranceCoverage: `coverage ${i + 1}`,
    insurancePage: 1,
    insuranceText: `EACH OCCURRENCE $${(i + 1) * 100},000 ${'POLICY TEXT '.repeat(10)}`,
    gap: i % 3 === 1 ? null : `gap-of-check-${i + 1}`,
  })),
  recommendations: ['Ask the tenant to raise liability coverage from $500,000 to $1,000,000.'],
  uncertain: ['Primary & Non-Contributory: the wording was not found.'],
  evidence: [],
};

const pagesText = (pdf: Buffer) => execFileSync('pdftotext', ['-layout', '-', '-'], { input: pdf }).toString('utf8').split('\f');

for (const [paper, size] of [
  ['a4', [595, 842]],
  ['letter', [612, 792]],
] as const) {
  test(`pdf-lib layout on ${paper}: every check in the extractable text, none cut across pages`, async (t) => {
    const pdf = await renderReportPdf({ html: '', model }, { kind: 'pdf-lib', paper });
    const doc = await PDFDocument.load(pdf);
    const { width, height } = doc.getPage(0).getSize();
    t.is(Math.round(width), size[0]);
    t.is(Math.round(height), size[1]);
    t.true(doc.getPageCount() > 1, 'long enough to need page breaks');
    const pages = pagesText(pdf);
    const all = pages.join('\n');
    t.true(all.includes('Harbor Lane Insurance'));
    t.true(all.includes('Overall: Not compliant'));
    t.regex(all, /\[ \] +Ask the tenant to raise liability coverage/);
    model.checks.forEach((c, i) => {
      const at = pages.findIndex((p) => p.includes(`${c.field}:`));
      t.true(at >= 0, `${c.field} is in the text`);
      if (c.gap) t.true(pages[at].includes(c.gap), `${c.field}: its gap is on the same page as its name`);
      t.true(pages[at].includes(`EACH OCCURRENCE $${(i + 1) * 100},000`), `${c.field}: its evidence is on the same page`);
    });
  });
}

test('the options are checked: chromium needs its executable', async (t) => {
  await t.throwsAsync(renderReportPdf({ html: '', model }, { kind: 'chromium', paper: 'a4' } as never));
});
