// The compliance report page: what a property manager forwards to the tenant. One document for the
// browser, the printer and the PDF: status and counts, the recommendations as a checklist, each of the 15 checks
// with the lease clause and the policy's evidence and their pages, what was uncertain, and the cited pages drawn
// as images. Images (pages, logo) are inline data URLs, so the page needs nothing but its stylesheet.
import { overallWords, statusWords, type ReportCheck, type ReportModel } from '../../pipelines/reports/model.ts';
import { html, type SafeHtml } from './html.ts';
import { layout, type Brand } from './layout.ts';

const sideWords = { lease: 'Lease', insurance: 'Policy' } as const;
const dash = (v: string | null | undefined) => (v === null || v === undefined || v === '' ? '—' : v);
const pngUrl = (png: Buffer) => `data:image/png;base64,${png.toString('base64')}`;

function pageRef(side: 'lease' | 'insurance', page: number | null): SafeHtml | string {
  if (page === null) return '';
  return html` <span class="report-page">(${sideWords[side].toLowerCase()} page ${page})</span>`;
}

function checkRow(c: ReportCheck, i: number): SafeHtml {
  return html`<tr class="report-check report-check--${c.status}">
<th scope="row">${c.field}</th>
<td data-label="Status"><span class="report-status report-status--${c.status}"><span aria-hidden="true">${c.status === 'pass' ? '✓' : c.status === 'fail' ? '✗' : '!'}</span> ${statusWords[c.status]}</span></td>
<td data-label="Lease requires">${c.leaseRequired}${pageRef('lease', c.leasePage)}${c.leaseClause ? html`<blockquote class="report-quote" aria-label="Lease clause, check ${i + 1}">${c.leaseClause}</blockquote>` : ''}</td>
<td data-label="Policy shows">${c.insuranceCoverage}${pageRef('insurance', c.insurancePage)}${c.insuranceText ? html`<blockquote class="report-quote" aria-label="Policy evidence, check ${i + 1}">${c.insuranceText}</blockquote>` : ''}</td>
<td data-label="Gap">${dash(c.gap)}</td>
</tr>`;
}

/** The report's body (inside the page shell). */
export function reportBody(m: ReportModel, o: { pdfUrl?: string } = {}): SafeHtml {
  return html`<article class="report" aria-labelledby="report-title">
<header class="report-head">
<p class="report-kicker">Insurance compliance report · ${m.agencyName}</p>
<h1 id="report-title" class="report-title">${dash(m.lease.property) === '—' ? 'Lease insurance check' : m.lease.property}</h1>
<dl class="report-facts">
<div><dt>Tenant</dt><dd>${dash(m.lease.tenant)}</dd></div>
<div><dt>Landlord</dt><dd>${dash(m.lease.landlord)}</dd></div>
<div><dt>Lease term</dt><dd>${dash(m.lease.start)} to ${dash(m.lease.end)}</dd></div>
<div><dt>Insurer</dt><dd>${dash(m.insurance.carrier)}</dd></div>
<div><dt>Policy number</dt><dd>${dash(m.insurance.policyNumber)}</dd></div>
<div><dt>Policy period</dt><dd>${dash(m.insurance.effective)} to ${dash(m.insurance.expiration)}</dd></div>
<div><dt>Judged as of</dt><dd>${m.asOf}</dd></div>
<div><dt>Documents</dt><dd>${m.lease.filename}; ${m.insurance.filename}</dd></div>
</dl>
${o.pdfUrl ? html`<p class="report-actions"><a class="button button--secondary button--small" href="${o.pdfUrl}">Download PDF</a></p>` : ''}
</header>

<section class="report-summary report-summary--${m.status}" aria-labelledby="summary-title">
<h2 id="summary-title" class="report-summary__title">Overall: ${overallWords[m.status]}</h2>
<ul class="report-counts">
<li><strong>${m.counts.pass}</strong> met</li>
<li><strong>${m.counts.fail}</strong> not met</li>
<li><strong>${m.counts.warning}</strong> to check</li>
<li><strong>${m.counts.uncertain}</strong> uncertain</li>
</ul>
<p class="report-summary__of">${m.counts.total} checks of the lease's insurance requirements against the policy.</p>
</section>

<section aria-labelledby="todo-title" class="report-section">
<h2 id="todo-title">What to do</h2>
${
  m.recommendations.length
    ? html`<ul class="report-checklist">${m.recommendations.map((r, i) => html`<li><input type="checkbox" id="todo-${i + 1}"><label for="todo-${i + 1}">${r}</label></li>`)}</ul>`
    : html`<p>Nothing: every requirement the lease states is met by the policy.</p>`
}
</section>

<section aria-labelledby="checks-title" class="report-section report-section--checks">
<h2 id="checks-title">The ${m.checks.length} checks</h2>
<div class="report-table-wrap"><table class="report-checks"><caption class="visually-hidden">Each check: its status, what the lease requires, what the policy shows, and the gap</caption>
<thead><tr><th scope="col">Check</th><th scope="col">Status</th><th scope="col">Lease requires</th><th scope="col">Policy shows</th><th scope="col">Gap</th></tr></thead>
<tbody>${m.checks.map(checkRow)}</tbody></table></div>
</section>

<section aria-labelledby="uncertain-title" class="report-section">
<h2 id="uncertain-title">What was uncertain</h2>
${m.uncertain.length ? html`<ul class="report-list">${m.uncertain.map((u) => html`<li>${u}</li>`)}</ul>` : html`<p>Nothing: every verdict rests on text read with confidence.</p>`}
</section>

${
  m.evidence.length
    ? html`<section aria-labelledby="pages-title" class="report-section report-pages">
<h2 id="pages-title">Where the values were read</h2>
${m.evidence.map(
  (e) => html`<figure class="report-figure">
${e.png ? html`<img src="${pngUrl(e.png)}" alt="${sideWords[e.side]} page ${e.page}, ${e.cropped ? 'the lines the values were read from' : 'as uploaded'}" loading="eager">` : html`<p class="report-figure__missing">The page image is no longer available (the file was removed after the retention period).</p>`}
<figcaption>${sideWords[e.side]} page ${e.page}${e.cropped ? '' : ' (whole page)'}: ${e.checks.join(', ')}</figcaption>
</figure>`,
)}
</section>`
    : ''
}

<footer class="report-foot"><p>Prepared by ${m.agencyName}. Analysis ${m.analysisId}${m.completedAt ? `, completed ${m.completedAt.slice(0, 10)}` : ''}. This report compares the documents as they were read; it is not legal advice.</p></footer>
</article>`;
}

/** The whole report document. `stylesheetUrl` is the served stylesheet, or a data URL when printed to PDF. */
export function reportDocument(m: ReportModel, o: { brand: Brand; stylesheetUrl: string; nonce: string; pdfUrl?: string }): SafeHtml {
  return layout({
    title: `Insurance compliance report · ${m.lease.property ?? m.analysisId}`,
    brand: o.brand,
    body: reportBody(m, { pdfUrl: o.pdfUrl }),
    stylesheetUrl: o.stylesheetUrl,
    nonce: o.nonce,
  });
}
