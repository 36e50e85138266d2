// ACORD forms: answers land in the right boxes (read back with pdf.js, by position), the zip lists exactly
// the forms that apply, and the report names the required fields a form did not capture.
import { createRequire } from 'node:module';
import path from 'node:path';
import test from 'ava';
import { buildAcordPacket, mapToAcord, renderAcordForm, winAnsi, type FieldBox } from '../../../pipelines/acord/index.ts';
import { template } from '../../../pipelines/forms/templates.ts';
import { zipEntries } from '../../helpers/zip.ts';

const require = createRequire(import.meta.url);
const standardFontDataUrl = path.join(path.dirname(require.resolve('pdfjs-dist/package.json')), 'standard_fonts') + path.sep;

interface Item {
  page: number;
  str: string;
  x: number;
  y: number;
}

/** Text items of a PDF with their page and baseline position, as pdf.js reads them. */
async function textItems(bytes: Uint8Array): Promise<Item[]> {
  const { getDocument } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const doc = await getDocument({ data: new Uint8Array(bytes), standardFontDataUrl, isEvalSupported: false, useSystemFonts: false }).promise;
  const out: Item[] = [];
  for (let p = 1; p <= doc.numPages; p++) {
    const page = await doc.getPage(p);
    const content = await page.getTextContent();
    for (const it of content.items as { str: string; transform: number[] }[])
      if (it.str.trim()) out.push({ page: p, str: it.str, x: it.transform[4], y: it.transform[5] });
  }
  await doc.destroy();
  return out;
}

const inside = (it: Item, b: FieldBox) => it.page === b.page && it.x >= b.x && it.x <= b.x + b.width && it.y >= b.y && it.y <= b.y + b.height;

/** The text pdf.js finds inside a field's box. */
const textIn = (items: Item[], b: FieldBox) =>
  items
    .filter((it) => inside(it, b))
    .map((it) => it.str)
    .join(' ')
    .trim();

const autoAnswers = {
  first_name: 'Zoë',
  last_name: 'Alvarez',
  email: 'zoe@example.com',
  phone: '512 555 0142',
  date_of_birth: '1990-04-02',
  mailing_address: { line1: '12 Elm St', city: 'Austin', state: 'TX', postal_code: '78701' },
  effective_date: '2026-12-01',
  drivers: [
    { first_name: 'Zoë', last_name: 'Alvarez', date_of_birth: '1990-04-02', license_number: 'D1234567', license_state: 'TX' },
    { first_name: 'Sam', last_name: 'Alvarez', date_of_birth: '1992-06-30', license_number: 'D7654321', license_state: 'TX' },
  ],
  vehicles: [{ year: 2019, make: 'Toyota', model: 'Corolla', vin: '1NXBR32E85Z505904' }],
  liability_limits: '100/300/100',
  optional_coverages: ['Medical payments', 'Roadside assistance'],
};

const ctx = { reference: 'Submission 7', createdAt: '2026-11-23T10:00:00.000Z', agencyName: 'Acme Agency' };

test('an ACORD 90 filled from the auto template has each answer in its own field, read back by pdf.js', async (t) => {
  const { structure } = template('auto');
  const mapping = mapToAcord(structure, autoAnswers);
  t.deepEqual(mapping.form_ids, ['90']);
  const pdf = await renderAcordForm('90', mapping.forms['90'], ctx);
  const items = await textItems(pdf.bytes);
  const box = (field: string) => {
    const b = pdf.boxes.find((x) => x.field === field);
    if (!b) throw new Error(`no box for ${field}`);
    return b;
  };
  t.is(textIn(items, box('ACORD90.Applicant.FirstName')), 'Zoë');
  t.is(textIn(items, box('ACORD90.Applicant.LastName')), 'Alvarez');
  t.is(textIn(items, box('ACORD90.Applicant.DateOfBirth')), '04/02/1990');
  t.is(textIn(items, box('ACORD90.Applicant.MailingAddress')), '12 Elm St, Austin, TX 78701');
  t.is(textIn(items, box('ACORD90.Policy.EffectiveDate')), '12/01/2026');
  t.is(textIn(items, box('ACORD90.Coverage.LiabilityLimits')), '100/300/100');
  t.is(textIn(items, box('ACORD90.Coverage.OptionalCoverages')), 'Medical payments, Roadside assistance');
  t.is(textIn(items, box('ACORD90.Driver[1].LicenseNumber')), 'D7654321');
  t.is(textIn(items, box('ACORD90.Driver[0].DateOfBirth')), '04/02/1990');
  t.is(textIn(items, box('ACORD90.Vehicle[0].VIN')), '1NXBR32E85Z505904');
  t.is(textIn(items, box('ACORD90.Vehicle[0].ModelYear')), '2019');
  t.is(textIn(items, box('ACORD90.Coverage.CollisionDeductible')), '', 'an unanswered field stays empty');
  // The label printed above a box is not inside it.
  t.false(textIn(items, box('ACORD90.Applicant.Email')).includes('Email'));
});

test('the packet zips exactly the forms that apply and reports required fields the form did not capture', async (t) => {
  const { structure } = template('auto');
  const packet = await buildAcordPacket(structure, autoAnswers, ctx);
  t.deepEqual(packet.form_ids, ['90']);
  t.deepEqual(zipEntries(packet.archive!), ['ACORD_90.pdf']);
  t.deepEqual(packet.missing, []);
  const partial = await buildAcordPacket(structure, { first_name: 'Zoë' }, ctx);
  t.deepEqual(
    partial.missing.map((m) => m.field),
    [
      'ACORD90.Applicant.LastName',
      'ACORD90.Applicant.DateOfBirth',
      'ACORD90.Applicant.Phone',
      'ACORD90.Applicant.MailingAddress',
      'ACORD90.Policy.EffectiveDate',
      'ACORD90.Coverage.LiabilityLimits',
      'ACORD90.Driver',
      'ACORD90.Vehicle',
    ],
  );
  const none = await buildAcordPacket(structure, {}, ctx);
  t.deepEqual(none.form_ids, []);
  t.is(none.archive, undefined);
});

test('a commercial intake fills ACORD 125 and 140 from the habitational template, both in the zip', async (t) => {
  const { structure } = template('habitational');
  const ids = structure.steps.flatMap((s) => s.questions).filter((q) => q.acord_field && q.type !== 'data_table' && q.type !== 'file_upload');
  const answers: Record<string, unknown> = {};
  for (const q of ids) {
    if (q.type === 'short_text' || q.type === 'long_text') answers[q.id] = `Value of ${q.id}`;
    else if (q.type === 'number') answers[q.id] = 12;
    else if (q.type === 'date') answers[q.id] = '2026-01-15';
    else if (q.type === 'email') answers[q.id] = 'owner@example.com';
    else if ('options' in q) answers[q.id] = q.type === 'multi_choice' ? [q.options[0]] : q.options[0];
    else if (q.type === 'address') answers[q.id] = { line1: '1 Main St', city: 'Dayton', state: 'OH', postal_code: '45402' };
  }
  const packet = await buildAcordPacket(structure, answers, ctx);
  t.true(packet.form_ids.includes('125'));
  t.true(packet.form_ids.includes('140'));
  t.deepEqual(
    zipEntries(packet.archive!),
    packet.form_ids.map((id) => `ACORD_${id}.pdf`),
  );
  for (const pdf of packet.pdfs) {
    const items = await textItems(pdf.bytes);
    t.true(
      items.some((it) => it.str === `ACORD ${pdf.form_id}`),
      `${pdf.form_id} has its title`,
    );
    for (const b of pdf.boxes.filter((x) => x.value)) t.is(textIn(items, b), b.value, `${b.field} holds its value`);
  }
});

test('text the standard fonts cannot draw is replaced, never fatal', async (t) => {
  t.is(winAnsi('Zoë Ångström – “quotes”'), 'Zoë Ångström – “quotes”');
  t.is(winAnsi('Łukasz 北京 🚗'), 'Lukasz ?? ?');
  const pdf = await renderAcordForm('90', { fields: { 'Applicant.FirstName': '北京 Łukasz' }, groups: {} }, ctx);
  const items = await textItems(pdf.bytes);
  t.true(items.some((it) => it.str.includes('Lukasz')));
});
