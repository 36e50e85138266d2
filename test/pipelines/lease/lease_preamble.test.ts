// Parties, premises and term as formal leases write them, in wordings the other tests do not use: a description
// between the name and "hereinafter called", "jointly called", a defined term in parentheses without "called", a
// unit named before the street in the same sentence, a retail space number, and a term that ends "at midnight".
import test from 'ava';
import { linesPage } from '../../helpers/lease.ts';
import { leaseFacts } from '../../../pipelines/lease/lease_facts.ts';
import { addressParts } from '../../../pipelines/lease/text.ts';

const facts = (lines: (string | [number, string][])[]) => leaseFacts([linesPage(1, lines)]);

test('"X, a Texas limited partnership, hereinafter called "Owner"": the name, not its description; "jointly called" names the tenants', (t) => {
  const f = facts([
    'THIS RENTAL AGREEMENT is entered into by and between Maple Grove Apartments, L.P., a Texas limited partnership, hereinafter',
    'called "Owner," and Daniel Kim and Priya Shah, hereinafter jointly called "Residents."',
  ]);
  t.is(f.landlord?.value, 'Maple Grove Apartments, L.P.');
  t.is(f.tenant?.value, 'Daniel Kim and Priya Shah');
});

test('a defined term in parentheses after "hereinafter" alone: (hereinafter "Landlord")', (t) => {
  const f = facts(['AGREEMENT made this 15th day of January, 2026, between JOHN P. HALVORSEN (hereinafter "Landlord") and ELLEN M. CARVER (hereinafter "Tenant").']);
  t.is(f.landlord?.value, 'JOHN P. HALVORSEN');
  t.is(f.tenant?.value, 'ELLEN M. CARVER');
});

test('a unit named before the street in the same sentence is the premises\' unit; a retail space number is a unit', (t) => {
  const f = facts([
    '1. APARTMENT. Owner rents to Residents Unit No. 407 of the apartment community known as Maple Grove Apartments, located at',
    '5120 North Lamar Boulevard, Austin, Texas 78751 (the "Apartment").',
  ]);
  t.is(f.propertyAddress?.value, '5120 North Lamar Boulevard, Unit No. 407, Austin, Texas 78751');
  // A unit of another sentence is not the premises' unit.
  const g = facts([
    'Notices go to Landlord at Suite 300 of its office. Landlord leases to Tenant the house located at 12 Elm Street, Dover, Delaware 19901.',
  ]);
  t.is(g.propertyAddress?.value, '12 Elm Street, Dover, Delaware 19901');
  const h = facts([[[60, 'PREMISES:'], [170, 'Shop Space No. 12, Sunbelt Plaza, 2450 East Camelback Road, Phoenix, Arizona 85016']]]);
  t.is(h.propertyAddress?.value, '2450 East Camelback Road, Shop Space No. 12, Phoenix, Arizona 85016');
});

test('"Unit No. 407" and "Unit 407" are the same unit when addresses are compared', (t) => {
  t.is(addressParts('5120 North Lamar Boulevard, Unit No. 407, Austin, Texas 78751').unit, '407');
  t.is(addressParts('5120 North Lamar Boulevard, Unit 407, Austin, TX 78751').unit, '407');
  t.is(addressParts('12 Oak St Apt No 4B, Springfield, IL 62701').unit, '4b');
});

test('a term that ends "at midnight on" a date written "the 28th day of February, 2027"', (t) => {
  const f = facts([
    '2. TERM. The term of this Agreement shall commence on the 1st day of March, 2026 and shall terminate at midnight on the 28th day of',
    'February, 2027.',
  ]);
  t.is(f.leaseStart?.value, '2026-03-01');
  t.is(f.leaseEnd?.value, '2027-02-28');
});
