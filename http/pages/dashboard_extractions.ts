// The dashboard's extraction pages: the list filterable by status and creation date, and one extraction's record
// with every extracted field (value, confidence, the value's own words) beside the cited page's image.
import type { getAgencyExtraction, listAgencyExtractions } from '../../db/queries/extractions.ts';
import { base, pager, when, type DashboardSession } from '../dashboard.ts';
import type { pageSize } from '../page_images.ts';
import { presentExtraction } from '../presenters/extractions.ts';
import { confidenceBadge, fieldLabel, leaves, pageView, shortSpan, showValue, type Citation } from './extraction_fields.ts';
import { html, type SafeHtml } from './html.ts';

export const EXTRACTION_STATUSES = ['queued', 'processing', 'needs_review', 'completed', 'partial', 'failed'] as const;

type ListRow = Awaited<ReturnType<typeof listAgencyExtractions>>[number];

/** The list of extractions with its filter form and paging links (`query`: the filters and this page's position). */
export function extractionsBody(
  s: DashboardSession,
  shown: ListRow[],
  query: { status?: string; from?: string; to?: string; before?: string },
  next: string | null,
): SafeHtml {
  const STATUSES = EXTRACTION_STATUSES;
  const b = `${base(s.mode)}/extractions`;
  const filtered = !!(query.status || query.from || query.to);
  return html`<form method="get" class="dash-filter">
<div class="field"><label class="field__label" for="status">Status</label><select class="input" id="status" name="status"><option value="">All</option>${STATUSES.map((x) => html`<option value="${x}"${x === query.status ? ' selected' : ''}>${x}</option>`)}</select></div>
<div class="field"><label class="field__label" for="from">Created from</label><input class="input" type="date" id="from" name="from" value="${query.from ?? ''}"></div>
<div class="field"><label class="field__label" for="to">Created until</label><input class="input" type="date" id="to" name="to" value="${query.to ?? ''}"></div>
<button class="button button--secondary button--small" type="submit">Filter</button></form>
${
  shown.length
    ? html`<div class="dash-table-wrap"><table class="dash-table"><caption class="visually-hidden">Extractions</caption>
<thead><tr><th scope="col">Document</th><th scope="col" class="dash-wide">Kind</th><th scope="col">Status</th><th scope="col" class="dash-wide">Read by</th><th scope="col" class="dash-wide">Agent</th><th scope="col">Created</th></tr></thead>
<tbody>${shown.map((row) => {
        const r = presentExtraction(row);
        return html`<tr><th scope="row"><a href="${b}/${r.extraction_id}">${r.filename}</a></th><td class="dash-wide">${r.entity_type.replace(/_/g, ' ')}</td><td><span class="dash-status dash-status--${r.parsing_status}">${r.parsing_status}</span></td><td class="dash-wide">${r.parsing_method ?? '—'}</td><td class="dash-wide">${row.agent_name}</td><td>${when(r.created_at)}</td></tr>`;
      })}</tbody></table></div>`
    : html`<p class="lede">No ${s.mode} extractions${filtered ? ' match these filters' : ' yet'}.${filtered ? '' : ' Documents are uploaded through the API (POST /api/v1/{agent_id}/policy/extract).'}</p>`
}
${pager(b, { status: query.status, from: query.from, to: query.to }, { paged: !!query.before, next, what: 'extractions' })}`;
}

/** The table of extracted fields: value, confidence and the value's own words; the selected one highlighted. */
function fieldsTable(b: string, reviewUrl: string | null, data: Record<string, unknown>, selected: string | null): SafeHtml {
  const citations = (data.citations ?? {}) as Record<string, Citation>;
  const uncertain = new Set((data.needs_review ?? []) as string[]);
  return html`<table class="dash-table dash-fields dash-stack"><caption class="visually-hidden">Extracted fields</caption>
<thead><tr><th scope="col">Field</th><th scope="col">Value</th><th scope="col">Confidence</th><th scope="col">Read from</th></tr></thead>
<tbody>${leaves(data).map(({ pointer, value }) => {
    const c = citations[pointer];
    const on = pointer === selected;
    return html`<tr${on ? html` class="is-selected" aria-current="true" id="selected-field"` : ''}><th scope="row">${fieldLabel(pointer)}${uncertain.has(pointer) ? html` <span class="dash-check">check</span>` : ''}</th><td class="dash-value">${showValue(value)}</td>
<td data-label="Confidence">${confidenceBadge(c, uncertain.has(pointer))}</td>
<td>${c ? html`<a href="${b}?field=${encodeURIComponent(pointer)}#page-image" aria-label="p.${c.page}: Show page ${c.page} (${fieldLabel(pointer)})">p.${c.page}</a>${shortSpan(c) ? html` <q class="dash-cite">${shortSpan(c)}</q>` : ''}${c.flagged ? html` <strong>not confirmed on the page</strong>` : ''}${reviewUrl ? html` <a class="dash-correct" href="${reviewUrl}?field=${encodeURIComponent(pointer)}" aria-label="Correct ${fieldLabel(pointer)}">Correct</a>` : ''}` : html`<small>no citation</small>`}</td></tr>`;
  })}</tbody></table>`;
}

/** What the extraction page shows: the record, its fields' citations and the page chosen (`shown` of `pages`). */
export interface ExtractionView {
  id: string;
  row: NonNullable<Awaited<ReturnType<typeof getAgencyExtraction>>>;
  r: ReturnType<typeof presentExtraction>;
  data: Record<string, unknown> | null;
  toReview: number;
  cited: number[];
  pages: number;
  selected: string | null;
  shown: number;
  canShow: boolean;
  size: Awaited<ReturnType<typeof pageSize>> | null;
  boxes: { pointer: string; box: NonNullable<Citation['box']>; uncertain: boolean }[];
}

/** One extraction: status, the fields to review, the fields table and the page image with its cited boxes. */
export function extractionBody(s: DashboardSession, v: ExtractionView): SafeHtml {
  const { id, row, r, data, toReview, cited, pages, selected, shown, canShow, size, boxes } = v;
  const b = `${base(s.mode)}/extractions/${id}`;
  return html`<p><span class="dash-status dash-status--${r.parsing_status}">${r.parsing_status.replace(/_/g, ' ')}</span> ${r.entity_type.replace(/_/g, ' ')}${data ? html` · ${String(data.policy_type ?? '')}` : ''} · ${r.parsing_method ?? 'not read yet'} · agent ${row.agent_name} · created ${when(r.created_at)}</p>
<p class="dash-id">Extraction <code>${r.extraction_id}</code>${'client_uuid' in r && r.client_uuid ? html` · client <code>${r.client_uuid}</code>` : ''}</p>
${toReview && data ? html`<p class="notice">${toReview} ${toReview === 1 ? 'field needs' : 'fields need'} a person to check ${toReview === 1 ? 'it' : 'them'}${r.parsing_status === 'needs_review' ? ' before the extraction is delivered' : ''}. <a href="${base(s.mode)}/review/${id}">Review ${toReview === 1 ? 'it' : 'them'}</a></p>` : ''}
${'error' in r && r.error ? html`<p class="notice" role="alert"><strong>${r.error}</strong>: ${r.details}</p>` : ''}
${r.file_expired ? html`<p class="notice">The document was removed after the retention period; its page images are no longer available.</p>` : ''}
<div class="dash-split dash-split--fit">
<section class="dash-split__main" aria-labelledby="fields-title" tabindex="0"><h2 id="fields-title">Extracted fields</h2>
${canShow ? html`<p class="dash-jump"><a href="#page-image">Go to the page image</a></p>` : ''}
${data ? fieldsTable(b, r.parsing_status === 'completed' || r.parsing_status === 'partial' ? `${base(s.mode)}/review/${id}` : null, data, selected) : html`<p class="lede">${r.parsing_status === 'failed' ? 'Nothing was extracted.' : 'The extraction is not finished yet: reload in a moment.'}</p>`}
</section>
${
  canShow
    ? html`<section class="dash-split__side" aria-labelledby="page-title" id="page-image" tabindex="0"><h2 id="page-title">Page ${shown} of ${pages}${selected ? html` <small>· ${fieldLabel(selected)}</small>` : ''}</h2>
${pages > 1 ? html`<nav class="dash-pages" aria-label="Pages of the document"><ul>${Array.from({ length: pages }, (_, i) => i + 1).map((n) => html`<li><a href="${b}?page=${n}#page-image"${n === shown ? html` aria-current="page"` : ''}>${n}${cited.includes(n) ? html`<span class="visually-hidden"> (cited)</span><span aria-hidden="true">•</span>` : ''}</a></li>`)}</ul></nav>` : ''}
${pageView({ src: `${b}/pages/${shown}`, alt: `Page ${shown} of ${r.filename}, as uploaded`, size, boxes, selected, href: (p) => `${b}?field=${encodeURIComponent(p)}#page-image` })}</section>`
    : ''
}
</div>
<p><a href="${base(s.mode)}/extractions">All extractions</a></p>`;
}
