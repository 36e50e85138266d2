import test from 'ava';
import {
  TOPICS,
  V1_EVENT_NAMES,
  V1SubscriptionEvent,
  canonicalJson,
  contentHash,
  envelopeBody,
  sampleTopicPayload,
  sampleV1Event,
  subscriptionMatches,
  topicEnvelope,
  v1EventEnvelope,
} from '../../../pipelines/webhooks/payloads.ts';
import { createHash } from 'node:crypto';

test('the topics and event names are exactly those of SPEC §6', (t) => {
  t.deepEqual([...TOPICS], ['client-submission', 'form-submission']);
  t.deepEqual(
    [...V1_EVENT_NAMES],
    ['client-submission.complete', 'client-submission.declaration-page-upload', 'client.reassigned', 'client.updated', 'client.sales-funnel-status-change'],
  );
  t.true(V1SubscriptionEvent.safeParse('*').success);
  t.false(V1SubscriptionEvent.safeParse('client.deleted').success);
  t.true(subscriptionMatches(['*'], 'client.updated'));
  t.true(subscriptionMatches(['client.updated'], 'client.updated'));
  t.false(subscriptionMatches(['client.reassigned'], 'client.updated'));
});

for (const topic of TOPICS) {
  test(`sample ${topic} payload is a valid { topic, data } with only those two keys`, (t) => {
    const sample = sampleTopicPayload(topic);
    t.deepEqual(Object.keys(sample), ['topic', 'data']);
    t.is(sample.topic, topic);
    t.deepEqual(topicEnvelope(topic, sample.data), sample);
    const parsed = JSON.parse(envelopeBody(sample).toString('utf8'));
    t.deepEqual(parsed, sample);
  });
}

test('form-submission data carries the §6.3 fields', (t) => {
  const { data } = sampleTopicPayload('form-submission') as { data: Record<string, any> };
  t.true(Number.isInteger(data.submission_id));
  t.deepEqual(Object.keys(data.form).sort(), ['id', 'insurance_line', 'name', 'public_id']);
  t.deepEqual(Object.keys(data.agent).sort(), ['email', 'id', 'name']);
  t.regex(data.submitted_at, /Z$/);
  const upload = data.answers.find((a: { type: string }) => a.type === 'file_upload');
  t.deepEqual(Object.keys(upload.value[0]).sort(), ['content_type', 'filename', 'url']);
  t.throws(() => topicEnvelope('form-submission', { ...data, surprise: 1 }));
  t.throws(() => topicEnvelope('form-submission', { ...data, answers: [{ question_id: 'f', label: 'F', type: 'file_upload', value: 'x.pdf' }] }));
});

test('client-submission data keeps policy-type specific fields and needs the listed ones', (t) => {
  const { data } = sampleTopicPayload('client-submission') as { data: Record<string, any> };
  t.truthy(data.policy.provider && data.policy.policy_number);
  t.truthy(data.policyholder.first_name && data.policyholder.last_name);
  t.true(Array.isArray(data.vehicles));
  t.true(Array.isArray(data.coverages)); // a further field: passes through
  const { document_link: _omit, ...noLink } = data;
  t.throws(() => topicEnvelope('client-submission', noLink));
});

for (const name of V1_EVENT_NAMES) {
  test(`sample v1 event ${name} has the documented envelope`, (t) => {
    const e = sampleV1Event(name, new Date('2026-11-21T10:00:00Z'));
    t.deepEqual(Object.keys(e), ['id', 'event', 'created_at', 'data']);
    t.regex(e.id, /^[0-9a-f-]{36}$/);
    t.is(e.event, name);
    t.is(e.created_at, '2026-11-21T10:00:00.000Z');
    t.is((e.data as { client: { uuid: string } }).client.uuid, '3f1c9a2e-8b7d-4c5e-9f10-2a3b4c5d6e7f');
    t.notThrows(() => v1EventEnvelope(e));
  });
}

test('v1 envelopes validate their data by event and refuse unknown events', (t) => {
  const e = sampleV1Event('client.reassigned');
  t.throws(() => v1EventEnvelope({ ...e, data: { ...e.data, agent: null } }));
  t.throws(() => v1EventEnvelope({ ...e, event: 'client.deleted' as never }));
  t.is(v1EventEnvelope({ event: e.event, data: e.data, id: e.id }).id, e.id);
});

test('contentHash is SHA-256 of canonical JSON: key order and whitespace do not matter, values do', (t) => {
  const a = { policy: { provider: 'X', policy_number: '1' }, vehicles: [{ b: 2, a: 1 }], n: 1.5, s: 'é', z: null };
  const b = JSON.parse('{ "z": null, "s": "\\u00e9", "n": 1.50, "vehicles": [ { "a": 1, "b": 2 } ], "policy": { "policy_number": "1", "provider": "X" } }');
  t.is(canonicalJson(a), '{"n":1.5,"policy":{"policy_number":"1","provider":"X"},"s":"é","vehicles":[{"a":1,"b":2}],"z":null}');
  t.is(contentHash(a), contentHash(b));
  t.is(contentHash(a), createHash('sha256').update(canonicalJson(a)).digest('hex'));
  t.not(contentHash(a), contentHash({ ...a, n: 2 }));
  t.not(contentHash([1, 2]), contentHash([2, 1]));
  t.is(contentHash(sampleTopicPayload('client-submission').data), contentHash(sampleTopicPayload('client-submission').data));
  t.throws(() => canonicalJson({ x: Number.NaN }));
});

test('the form-submission sample names a form by a public_id of the real shape (f_ and 20 hex digits, as app_public.forms makes them)', (t) => {
  const { data } = sampleTopicPayload('form-submission') as { data: { form: { public_id: string } } };
  t.regex(data.form.public_id, /^f_[0-9a-f]{20}$/);
});
