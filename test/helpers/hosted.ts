// A published form for hosted-page tests: every question type, a show rule, a skip rule, ACORD fields.
import { agencyWithTestKey, type TestService } from './server.ts';

export const HOSTED_STEPS = [
  {
    id: 'about',
    name: 'About you',
    questions: [
      { id: 'first_name', type: 'short_text', label: 'First name', required: true, acord_field: 'ACORD80.Applicant.FirstName' },
      { id: 'last_name', type: 'short_text', label: 'Last name', required: true, acord_field: 'ACORD80.Applicant.LastName' },
      { id: 'email', type: 'email', label: 'Email address', required: true, acord_field: 'ACORD80.Applicant.Email' },
      { id: 'phone', type: 'short_text', label: 'Phone number', acord_field: 'ACORD80.Applicant.Phone' },
      { id: 'has_pets', type: 'single_choice', label: 'Do you have pets?', required: true, options: ['Yes', 'No'] },
      {
        id: 'pet_count',
        type: 'number',
        label: 'How many pets?',
        required: true,
        initially_hidden: true,
        settings: { integer: true, min: 1 },
        rules: [{ condition_mode: 'all', conditions: [{ source_question_id: 'has_pets', operator: 'equals', value: 'Yes' }], action: 'show' }],
      },
      {
        id: 'renting',
        type: 'single_choice',
        label: 'Do you rent your home?',
        required: true,
        options: ['Yes', 'No'],
        rules: [
          {
            condition_mode: 'all',
            conditions: [{ source_question_id: 'renting', operator: 'equals', value: 'Yes' }],
            action: 'skip_to_step',
            target_step_id: 'documents',
          },
        ],
      },
    ],
  },
  {
    id: 'home',
    name: 'Your home',
    questions: [
      {
        id: 'home_address',
        type: 'address',
        label: 'Home address',
        required: true,
        settings: { include_line2: true },
        acord_field: 'ACORD80.Location.Address',
      },
      {
        id: 'year_built',
        type: 'number',
        label: 'Year built',
        required: true,
        settings: { integer: true, min: 1800, max: 2030 },
        acord_field: 'ACORD80.Construction.YearBuilt',
      },
      { id: 'purchase_date', type: 'date', label: 'Purchase date', acord_field: 'ACORD80.Dwelling.PurchaseDate' },
      { id: 'roof', type: 'dropdown', label: 'Roof type', options: ['Asphalt shingle', 'Metal', 'Tile'], acord_field: 'ACORD80.Construction.RoofType' },
      {
        id: 'protections',
        type: 'multi_choice',
        label: 'Protective devices',
        options: ['Smoke detectors', 'Burglar alarm', 'Sprinklers'],
        acord_field: 'ACORD80.Protection.Devices',
      },
      {
        id: 'household',
        type: 'data_table',
        label: 'Residents of the household',
        settings: {
          columns: [
            { id: 'name', label: 'Full name', type: 'short_text', required: true },
            { id: 'born', label: 'Date of birth', type: 'date' },
          ],
          max_rows: 5,
        },
      },
    ],
  },
  {
    id: 'documents',
    name: 'Documents',
    questions: [
      { id: 'declarations', type: 'file_upload', label: 'Current declarations page', settings: { accept: ['.pdf', 'image/*'], max_files: 2 } },
      { id: 'notes', type: 'long_text', label: 'Anything else we should know?', acord_field: 'ACORD80.Remarks.Text' },
    ],
  },
];

/** A published form of the key's agency; returns its id and public_id. */
export async function publishedForm(
  svc: TestService,
  key: string,
  agencyId: number,
  name = 'Home insurance quote',
  steps: unknown = HOSTED_STEPS,
): Promise<{ id: number; public_id: string }> {
  const w = (method: string, path: string, json?: unknown) =>
    svc.request(method, path, { token: key, json, headers: { 'Idempotency-Key': crypto.randomUUID() } });
  const created = await w('POST', '/v2/forms', { name, owner: { type: 'agency', agency_id: agencyId }, insurance_line: 'homeowners' });
  if (created.status !== 201) throw new Error(`create failed: ${created.text}`);
  const patched = await w('PATCH', `/v2/forms/${created.body.id}`, { steps });
  if (patched.status !== 200) throw new Error(`patch failed: ${patched.text}`);
  const pub = await w('POST', `/v2/forms/${created.body.id}/publish`);
  if (pub.status !== 200) throw new Error(`publish failed: ${pub.text}`);
  return { id: created.body.id, public_id: created.body.public_id };
}

/** An agency of a new OAuth client with a test key and the hosted form (HOSTED_STEPS) published: where the hosted-page HTTP tests start. */
export async function agencyWithForm(svc: TestService) {
  const { oauth: c, key, ...a } = await agencyWithTestKey(svc);
  const form = await publishedForm(svc, key, a.agencyId);
  return { oauth: c.token, agencyId: a.agencyId, ownerId: a.ownerId, slug: a.slug, key, form };
}
export type AgencyWithForm = Awaited<ReturnType<typeof agencyWithForm>>;

/** A minimal valid PDF (enough for magic-byte checks and for a receiver to store). */
export const TINY_PDF = Buffer.from(
  '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
);

/** Answers of a consumer who owns a home with pets (every step walked). */
export const OWNER_ANSWERS = {
  first_name: 'Zoë',
  last_name: 'Alvarez',
  email: 'zoe@example.com',
  phone: '512 555 0142',
  has_pets: 'Yes',
  pet_count: '2',
  renting: 'No',
  home_address: { line1: '12 Elm St', city: 'Austin', state: 'TX', postal_code: '78701' },
  year_built: 1998,
  roof: 'Metal',
  protections: ['Smoke detectors'],
  household: [{ name: 'Zoë Alvarez', born: '1990-04-02' }],
  notes: 'Dog is friendly.',
};
