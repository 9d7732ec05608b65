/**
 * Every incoming frame's envelope: the data plane's quick check of a plainly well-formed packet
 * (envelope.ts) must answer exactly as the contract's schema does — the same packet when it
 * accepts, the schema's own words when it refuses — on ordinary packets and on every field
 * taken to its edges.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseEnvelope } from '../../main/core/protocol/envelope';
import {
  formatIssue,
  MAX_PACKET_TYPE_LENGTH,
  MAX_WIRE_ID_LENGTH,
  packetEnvelopeSchema,
  PACKET_SCHEMA,
} from '../../main/contract/wire-schemas';

const BASE: Record<string, unknown> = {
  schema: PACKET_SCHEMA,
  packet_id: 'pkt_1',
  request_id: 'req_1',
  connector_channel_id: 'ch_1',
  type: 'tool.invoke',
  time: 1_700_000_000_000,
  payload: { tool_id: 'android_tap', arguments: { x: 540, y: 147 }, context: { tool_call_id: 'c1' } },
};

const ID_VALUES: unknown[] = [
  '',
  'a',
  'x'.repeat(MAX_WIRE_ID_LENGTH),
  'x'.repeat(MAX_WIRE_ID_LENGTH + 1),
  7,
  null,
  [],
  {},
];
const VARIANTS: Record<string, unknown[]> = {
  schema: ['xagent.connector.packet/v2', '', 1, null],
  packet_id: ID_VALUES,
  request_id: ID_VALUES,
  reply_to: ID_VALUES,
  connector_channel_id: ID_VALUES,
  type: ['', 'ping', 't'.repeat(MAX_PACKET_TYPE_LENGTH), 't'.repeat(MAX_PACKET_TYPE_LENGTH + 1), 3, null],
  time: [0, -1, 1.5, 2 ** 53, Number.MAX_SAFE_INTEGER, '5', null, 1e300],
  payload: [{}, [], null, 'x', 5, { a: [1, { b: 2 }] }, JSON.parse('{"__proto__":{"polluted":1},"k":1}')],
  error: [
    { code: 'x' },
    { code: '' },
    { code: 'x', message: 'm' },
    { code: 'x', message: 5 },
    { code: 'x', extra: true },
    { message: 'm' },
    [],
    null,
    'bad',
  ],
  extra_field: ['kept?', { nested: 1 }],
};

/** The schema's answer for the same text, in parseEnvelope's form. */
function schemaAnswer(text: string): { ok: true; packet: unknown } | { ok: false; message: string } {
  const result = packetEnvelopeSchema.safeParse(JSON.parse(text));
  if (result.success) return { ok: true, packet: result.data };
  const issue = result.error.issues[0];
  return { ok: false, message: `invalid envelope: ${issue ? formatIssue(issue) : 'invalid'}`.slice(0, 300) };
}

function assertSameAnswer(packet: Record<string, unknown>, what: string): void {
  const text = JSON.stringify(packet);
  const expected = schemaAnswer(text);
  const got = parseEnvelope(text);
  assert.equal(got.ok, expected.ok, `${what}: accepted by one, refused by the other`);
  if (got.ok && expected.ok) assert.deepEqual(got.packet, expected.packet, what);
  if (!got.ok && !expected.ok) assert.equal(got.message, expected.message, what);
}

describe('the envelope check answers as the contract’s schema does', () => {
  test('an ordinary packet of each kind the agent sends', () => {
    assertSameAnswer(BASE, 'tool.invoke');
    assertSameAnswer({ schema: PACKET_SCHEMA, packet_id: 'p', type: 'ping' }, 'ping');
    assertSameAnswer({ ...BASE, reply_to: 'pkt_0', error: { code: 'x', message: 'm' } }, 'reply with error');
    const parsed = parseEnvelope(JSON.stringify({ ...BASE, extra_field: 1 }));
    assert.ok(parsed.ok && !('extra_field' in parsed.packet), 'unknown fields are dropped');
  });

  test('each field taken to its edges, alone and missing', () => {
    for (const [field, values] of Object.entries(VARIANTS)) {
      const without = { ...BASE };
      delete without[field];
      assertSameAnswer(without, `${field} missing`);
      for (const value of values) assertSameAnswer({ ...BASE, [field]: value }, `${field}=${JSON.stringify(value)}`);
    }
  });

  test('two or three fields changed at once (seeded, 3000 packets)', () => {
    let seed = 0x2545f491;
    const next = (n: number): number => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) % n;
    };
    const fields = Object.keys(VARIANTS);
    for (let i = 0; i < 3000; i++) {
      const packet = { ...BASE };
      for (let k = 0; k < 2 + next(2); k++) {
        const field = fields[next(fields.length)]!;
        const values = VARIANTS[field]!;
        const pick = next(values.length + 1);
        if (pick === values.length) delete packet[field];
        else packet[field] = values[pick];
      }
      assertSameAnswer(packet, `case ${i}: ${JSON.stringify(packet).slice(0, 200)}`);
    }
  });
});
