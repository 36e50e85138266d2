// `svc extract FILE [--type T] [--json]`: run the extraction engine locally (no server, no database) and
// print the SPEC §2.9 record. A file the pipeline refuses exits non-zero with its §7.2 error code.
import fs from 'node:fs';
import path from 'node:path';
import { commandArgs, documentFailure } from './args.ts';
import { config } from '../../lib/config.ts';
import { extractDocument, closeDocumentPools, entityTypeSchema, type ExtractOptions, type ExtractionResult } from '../../pipelines/extraction/index.ts';
import { presentLocalExtraction, presentParsingMethod } from '../../http/presenters/extractions.ts';

const usage = `usage: svc extract FILE [--type ENTITY_TYPE] [--json] [--raw]
  --type   one of ${entityTypeSchema.options.join(', ')} (default declaration_page)
  --json   print the record as JSON (with --raw, include _raw)`;

/** LLM and OCR settings from the environment; the LLM is used only when LLM_BASE_URL and LLM_MODEL are set. */
export function engineOptionsFromConfig(): Pick<ExtractOptions, 'llm' | 'read'> {
  const c = config();
  const llm = c.LLM_BASE_URL && c.LLM_MODEL ? { baseURL: c.LLM_BASE_URL, model: c.LLM_MODEL, apiKey: c.LLM_API_KEY } : undefined;
  const engine =
    c.OCR_ENGINE === 'tesseract-cli'
      ? { kind: 'tesseract-cli' as const, path: c.TESSERACT_PATH, searchPath: c.commandPath }
      : { kind: 'tesseract.js' as const };
  return { llm, read: { maxBytes: c.MAX_UPLOAD_BYTES, maxPages: c.MAX_DOCUMENT_PAGES, ocr: { engine } } };
}

function printHuman(r: ExtractionResult) {
  const d = r.extracted_data;
  const out: string[] = [];
  out.push(`${r.filename}: ${d.policy_type} — ${r.parsing_status} via ${presentParsingMethod(r.parsing_method)}`);
  const cite = (p: string) => (d.citations[p] ? `  (p.${d.citations[p].page}, ${d.citations[p].source})` : '');
  const row = (label: string, p: string, v: unknown) => v !== null && v !== undefined && out.push(`  ${label.padEnd(18)} ${String(v)}${cite(p)}`);
  row('carrier', '/policy/provider', d.policy.provider);
  row('policy number', '/policy/policy_number', d.policy.policy_number);
  row('effective', '/policy/effective_date', d.policy.effective_date);
  row('expiration', '/policy/expiration_date', d.policy.expiration_date);
  row('premium', '/policy/premium', d.policy.premium);
  const holder = [d.policyholder.first_name, d.policyholder.last_name].filter(Boolean).join(' ') || d.policyholder.organization;
  row('policyholder', '/policyholder/last_name', holder);
  row('address', '/policyholder/address', d.policyholder.address);
  if (d.coverages.length) out.push('  coverages:');
  for (const c of d.coverages) out.push(`    - ${c.name}: limit ${c.limit ?? '—'}, deductible ${c.deductible ?? '—'}, premium ${c.premium ?? '—'}`);
  for (const v of d.vehicles) out.push(`  vehicle: ${[v.year, v.make, v.model].filter(Boolean).join(' ')} VIN ${v.vin}`);
  for (const v of d.drivers) out.push(`  driver: ${v.name}`);
  if (d.property) for (const [k, v] of Object.entries(d.property)) if (v !== null) out.push(`  property.${k}: ${v}`);
  for (const p of d.interested_parties) out.push(`  ${p.role}: ${p.name}${p.address ? `, ${p.address}` : ''}`);
  if (d.certificate) {
    out.push(`  producer: ${d.certificate.producer ?? '—'}; insured: ${d.certificate.insured ?? '—'}; holder: ${d.certificate.certificate_holder ?? '—'}`);
    for (const i of d.certificate.insurers) out.push(`  insurer ${i.letter}: ${i.name}${i.naic ? ` (NAIC ${i.naic})` : ''}`);
    for (const c of d.certificate.coverages) {
      const limits = Object.entries(c)
        .filter(([k, v]) => typeof v === 'number' && k !== 'type')
        .map(([k, v]) => `${k} ${v}`)
        .join(', ');
      out.push(
        `    - ${c.type} ${c.policy_number ?? ''} ${c.effective_date ?? ''}..${c.expiration_date ?? ''} ${limits}${c.additional_insured ? ' addl-insd' : ''}${c.subrogation_waived ? ' subr-wvd' : ''}`,
      );
    }
  }
  for (const e of r.errors) out.push(`  ! ${e.stage}${e.page ? ` p.${e.page}` : ''}: ${e.message}`);
  if (r._raw.ungrounded.length) out.push(`  (${r._raw.ungrounded.length} value(s) dropped: not found on their page)`);
  process.stdout.write(`${out.join('\n')}\n`);
}

/** Entry point for `svc extract`; returns the exit code. */
export async function run(argv: string[]): Promise<number> {
  const args = commandArgs(
    {
      args: argv,
      allowPositionals: true,
      options: { type: { type: 'string' }, json: { type: 'boolean' }, raw: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    },
    usage,
  );
  if (typeof args === 'number') return args;
  const file = args.positionals[0];
  if (!file) {
    process.stderr.write(`${usage}\n`);
    return 2;
  }
  const type = entityTypeSchema.safeParse(args.values.type ?? 'declaration_page');
  if (!type.success) {
    process.stderr.write(`bad_request: unknown --type "${args.values.type}"\n${usage}\n`);
    return 2;
  }
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(fs.readFileSync(file));
  } catch (e) {
    process.stderr.write(`bad_request: cannot read ${file}: ${(e as Error).message}\n`);
    return 2;
  }
  try {
    const r = await extractDocument(bytes, { entityType: type.data, filename: path.basename(file), ...engineOptionsFromConfig() });
    if (args.values.json) process.stdout.write(`${JSON.stringify(presentLocalExtraction(r, { raw: !!args.values.raw }), null, 2)}\n`);
    else printHuman(r);
    return r.success ? 0 : 1;
  } catch (e) {
    return documentFailure(e, !!args.values.json);
  } finally {
    await closeDocumentPools();
  }
}
