// A role written after a party's name ("Acme Bank, Loss Payee"): the name is without it and the role is the one
// stated, less surely where the caption names another; on a certificate's holder, on a declarations page's
// interests and in an ACORD evidence's additional interest box.
import test from 'ava';
import { textPage, collect, firstValues } from '../../helpers/pages.ts';
import { parties, statedRole } from '../../../pipelines/extraction/parties.ts';
import { extractFreeCertificate } from '../../../pipelines/extraction/free_certificate.ts';
import { certificateForm } from '../../../pipelines/extraction/kinds/index.ts';

const partyAt = (caption: string) =>
  textPage([
    [40, 300, caption],
    [160, 300, 'Acme Bank, Loss Payee'],
    [160, 312, '100 Main Street'],
    [160, 324, 'Springfield, IL 62701'],
  ]);

test('statedRole: the roles written after a name, and names that only look like it', (t) => {
  t.deepEqual(statedRole('Acme Bank, Loss Payee'), { name: 'Acme Bank', role: 'loss_payee' });
  t.deepEqual(statedRole('Acme Bank - Mortgagee'), { name: 'Acme Bank', role: 'mortgagee' });
  t.deepEqual(statedRole('Acme Bank (Lienholder)'), { name: 'Acme Bank', role: 'lienholder' });
  t.deepEqual(statedRole('Acme Bank, as Additional Insured'), { name: 'Acme Bank', role: 'additional_insured' });
  t.deepEqual(statedRole('Smith, John'), { name: 'Smith, John', role: null });
  t.deepEqual(statedRole('Mortgagee Services Inc'), { name: 'Mortgagee Services Inc', role: null });
});

test('declarations interests: the stated role over a general caption; against another role, less surely', (t) => {
  const general = firstValues((emit) => parties([partyAt('Additional Interests:')], emit));
  t.is(general['/interested_parties/0/name'], 'Acme Bank');
  t.is(general['/interested_parties/0/role'], 'loss_payee');
  t.is(general['/interested_parties/0/address'], '100 Main Street, Springfield, IL 62701');
  const other = collect((emit) => parties([partyAt('Mortgagee:')], emit));
  const role = other.find((c) => c.pointer === '/interested_parties/0/role')!;
  t.is(role.value, 'loss_payee');
  t.true(role.confidence < 0.9);
  t.is(other.find((c) => c.pointer === '/interested_parties/0/name')!.value, 'Acme Bank');
});

test('a free certificate holder with a role after its name: the name without it, the holder role less surely', (t) => {
  const p = textPage([
    [200, 30, 'CERTIFICATE OF INSURANCE'],
    [40, 84, 'Certificate Holder: Acme Bank, Loss Payee'],
    [118, 96, '100 Main Street'],
  ]);
  const cs = collect((emit) => extractFreeCertificate(p, emit));
  t.is(cs.find((c) => c.pointer === '/certificate/certificate_holder')!.value, 'Acme Bank');
  t.is(cs.find((c) => c.pointer === '/interested_parties/0/name')!.value, 'Acme Bank');
  t.true(cs.find((c) => c.pointer === '/interested_parties/0/role')!.confidence < 0.85);
});

test('an ACORD evidence additional interest box "First Federal Bank, Loss Payee": the name and the role stated', (t) => {
  const p = textPage(
    [
      [132, 35, 'EVIDENCE OF PROPERTY INSURANCE'],
      [22, 96, 'PRODUCER NAME,'],
      [20, 112, 'Jane Broker'],
      [22, 651, 'ADDITIONAL INTEREST'],
      [22, 689, 'NAME AND ADDRESS'],
      [83, 704, 'First Federal Bank, Loss Payee'],
      [83, 713, '12 South Pkwy'],
    ],
    1,
    { h: 7 },
  );
  const v = firstValues((emit) => certificateForm([p]).extract([p], emit));
  t.is(v['/certificate/certificate_holder'], 'First Federal Bank');
  t.is(v['/interested_parties/0/name'], 'First Federal Bank');
  t.is(v['/interested_parties/0/role'], 'loss_payee');
});

test('declarations interests: an additional insured with a designation after a dash, or a scan that parted the designation from the caption', (t) => {
  for (const cells of [
    [[40, 300, 'Additional Insured - Lessor of Premises: Lincolnway Properties LLC']],
    [
      [40, 300, 'Additional Insured'],
      [129, 300, 'Lessor of Premises: Lincolnway Properties LLC'],
    ],
    // Fixed pitch: the designation a cell of its own between the caption and the name.
    [
      [50, 300, 'Additional Insured'],
      [184, 300, 'Managers or Lessors of Premises:'],
      [402, 300, 'Lincolnway Properties LLC'],
    ],
  ] as [number, number, string][][]) {
    const v = firstValues((emit) => parties([textPage([[40, 30, 'BUSINESSOWNERS POLICY DECLARATIONS'], ...cells])], emit));
    t.is(v['/interested_parties/0/name'], 'Lincolnway Properties LLC', JSON.stringify(cells));
    t.is(v['/interested_parties/0/role'], 'additional_insured');
  }
});
