// The checks of the policy's dates and standing: Policy Period (the policy covers the lease term) and Policy
// Status (an issued policy in force on the day judged, not a quote, application or cancelled policy).
import { shortDate } from './text.ts';
import { item, type Check } from './check_item.ts';

export const policyPeriod: Check = (lease, ins, ctx) => {
  const field = 'Policy Period';
  const s = lease.leaseStart;
  const e = lease.leaseEnd;
  const eff = ins.effectiveDate;
  const exp = ins.expirationDate;
  const req = {
    text: s && e ? `${shortDate(s.value)} to ${shortDate(e.value)}` : s ? `From ${shortDate(s.value)}` : 'Lease term not found',
    page: s?.page ?? e?.page ?? null,
    clause: s?.text,
  };
  const cov = {
    text: eff ? `${shortDate(eff.value)} to ${exp ? shortDate(exp.value) : 'no expiration shown'}` : 'Policy period not shown',
    page: eff?.page ?? exp?.page ?? null,
    evidence: eff?.text,
  };
  if (!eff)
    return item(
      field,
      req,
      cov,
      'warning',
      'The policy period could not be read from the insurance document.',
      "Check the policy's effective and expiration dates by hand.",
    );
  if (exp && exp.value < ctx.asOf)
    return item(
      field,
      req,
      cov,
      'fail',
      `The policy expired on ${shortDate(exp.value)}, before ${shortDate(ctx.asOf)}.`,
      'Ask the tenant for the renewal of the policy.',
    );
  if (!s) {
    const rule = lease.termRules.start;
    return item(
      field,
      { ...req, text: rule ? 'Commencement defined by a rule, not a date' : req.text, page: rule?.page ?? req.page, clause: rule?.value ?? req.clause },
      cov,
      'warning',
      rule
        ? `The lease sets its commencement by a rule, not a calendar date ("${rule.value.slice(0, 160)}"); the policy period could not be checked against it.`
        : 'The lease term could not be read from the lease.',
      'Check by hand that the policy period covers the lease term.',
    );
  }
  if (eff.value > s.value)
    return item(
      field,
      req,
      cov,
      'fail',
      `Coverage starts ${shortDate(eff.value)}, after the lease starts on ${shortDate(s.value)}.`,
      `Ask the tenant to have the policy start on or before ${shortDate(s.value)}.`,
    );
  if (!exp) return item(field, req, cov, 'warning', 'The policy shows no expiration date.', 'Confirm the policy stays in force for the whole lease term.');
  // An end the lease defines by a rule is not a fact to pass on: the period is checked by hand.
  if (!e && lease.termRules.end)
    return item(
      field,
      req,
      cov,
      'warning',
      `The lease sets its expiration by a rule, not a calendar date ("${lease.termRules.end.value.slice(0, 160)}").`,
      'Confirm the policy stays in force for the whole lease term.',
    );
  // No end is a fact only for an open-ended (month-to-month) term; otherwise it is a gap, never a pass.
  if (!e && lease.openTerm) return item(field, { ...req, text: `From ${shortDate(s.value)}, ${lease.openTerm.value}` }, cov, 'pass', null);
  if (!e)
    return item(field, req, cov, 'warning', 'The lease end could not be read from the lease.', 'Confirm the policy stays in force for the whole lease term.');
  if (exp.value >= e.value) return item(field, req, cov, 'pass', null);
  return item(
    field,
    req,
    cov,
    'warning',
    `The policy expires ${shortDate(exp.value)}, before the lease ends on ${shortDate(e.value)}.`,
    `Diary a renewal check: ask the tenant for proof of renewal before ${shortDate(exp.value)}.`,
  );
};

export const policyStatus: Check = (_lease, ins, ctx) => {
  const field = 'Policy Status';
  const req = { text: `In force on ${shortDate(ctx.asOf)}`, page: null };
  const m = (k: string) => ins.markers.find((x) => x.value === k);
  const eff = ins.effectiveDate;
  const exp = ins.expirationDate;
  const period = {
    text: eff ? `In force ${shortDate(eff.value)} to ${exp ? shortDate(exp.value) : '—'}` : 'Status not shown',
    page: eff?.page ?? null,
    evidence: eff?.text,
  };
  const bad = m('cancelled') ?? m('quote') ?? m('application');
  if (bad) {
    const what = bad.value === 'cancelled' ? 'Cancelled' : bad.value === 'quote' ? 'Quote, not a policy' : 'Application, not a policy';
    return item(
      field,
      req,
      { text: what, page: bad.page, evidence: bad.text },
      'fail',
      bad.value === 'cancelled' ? 'The policy has been cancelled.' : `The document is a ${bad.value}, not an issued policy.`,
      bad.value === 'cancelled'
        ? 'Ask the tenant for proof of a new, in-force policy; the one provided is cancelled.'
        : 'Ask the tenant for the issued policy declarations once the policy is bound.',
    );
  }
  if (exp && exp.value < ctx.asOf)
    return item(
      field,
      req,
      { ...period, text: `Expired ${shortDate(exp.value)}` },
      'fail',
      `The policy expired on ${shortDate(exp.value)}.`,
      'Ask the tenant for the renewed policy.',
    );
  const soft = m('binder') ?? m('pending');
  if (soft) {
    return item(
      field,
      req,
      { text: soft.value === 'binder' ? 'Binder (temporary evidence of coverage)' : 'Pending', page: soft.page, evidence: soft.text },
      'warning',
      soft.value === 'binder' ? 'The document is a binder: temporary evidence of coverage until the policy is issued.' : 'The policy is pending.',
      soft.value === 'binder'
        ? 'Ask the tenant for the issued policy declarations before the binder expires.'
        : 'Follow up with the tenant until the policy is issued and in force.',
    );
  }
  if (!eff)
    return item(
      field,
      req,
      period,
      'warning',
      'The policy period could not be read, so its status is unknown.',
      'Confirm with the insurer that the policy is in force.',
    );
  if (eff.value > ctx.asOf)
    return item(
      field,
      req,
      { ...period, text: `Not yet in force (starts ${shortDate(eff.value)})` },
      'warning',
      `The policy does not start until ${shortDate(eff.value)}.`,
      `Confirm the policy takes effect on ${shortDate(eff.value)} as shown.`,
    );
  if (!exp)
    return item(
      field,
      req,
      period,
      'warning',
      'The policy shows no expiration date, so it may have lapsed.',
      'Confirm with the insurer that the policy is still in force.',
    );
  return item(field, req, period, 'pass', null);
};
