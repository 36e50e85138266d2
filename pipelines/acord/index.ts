// ACORD stage: answers of a submission → the forms that apply, each rendered as a flattened PDF, zipped.
// Pure (no database, no configuration): the submissions__finalize task stores the archive and links it.
import type { FormStructure } from '../forms/schema.ts';
import { mapToAcord, type MissingField } from './map.ts';
import { renderAcordForm, type RenderContext, type RenderedForm } from './render.ts';
import { zipFiles } from './zip.ts';

export { ACORD_FORMS, ACORD_FORM_IDS, splitAcordField, type AcordFormDef } from './forms.ts';
export { mapToAcord, printable, formatDate, type AcordMapping, type AcordFormValues, type MissingField } from './map.ts';
export { renderAcordForm, winAnsi, type FieldBox, type RenderedForm, type RenderContext } from './render.ts';
export { zipFiles } from './zip.ts';

export interface AcordPacket {
  status: 'success' | 'failure';
  /** ACORD numbers in the archive, in order; empty when no question maps to a form this service fills. */
  form_ids: string[];
  pdfs: RenderedForm[];
  /** The zip of the PDFs (`ACORD_<n>.pdf` each); undefined when form_ids is empty. */
  archive?: Buffer;
  missing: MissingField[];
}

/** Map, render and zip the ACORD forms a submission's answers fill. */
export async function buildAcordPacket(structure: FormStructure, answers: Readonly<Record<string, unknown>>, ctx: RenderContext): Promise<AcordPacket> {
  const mapping = mapToAcord(structure, answers);
  if (!mapping.form_ids.length) return { status: 'success', form_ids: [], pdfs: [], missing: [] };
  const pdfs: RenderedForm[] = [];
  for (const id of mapping.form_ids) pdfs.push(await renderAcordForm(id, mapping.forms[id], ctx));
  const archive = await zipFiles(
    pdfs.map((p) => ({ name: p.filename, bytes: p.bytes })),
    new Date(ctx.createdAt),
  );
  return { status: 'success', form_ids: mapping.form_ids, pdfs, archive, missing: mapping.missing };
}
