/**
 * Hardening — property-based fuzz (fast-check) of data-plane packets over a real WebSocket,
 * against a bridge with a bound simulated phone so tool.invoke reaches deep. Random text,
 * random JSON, envelopes with random types, ids, payloads, huge strings and deep nesting:
 * every frame gets spec packets back (an error with a stable code, or a spec reply), never
 * an internal error, a crash or a hang, and this and other connections keep working.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ERROR_CODES } from '../../main/core/errors';
import { bindChannel, startDeviceRig, waitUntil, type DeviceRig } from '../helpers/device-rig';
import { XAgentClient, type Packet } from '../helpers/xagent-client';

const RUNS = Number(process.env.HARDENING_FUZZ_RUNS ?? 400);
const KNOWN_CODES = new Set<string>(ERROR_CODES);
// Tools that may legitimately take long with valid arguments; fuzzing their ids would only
// test patience. Random tool ids and all other tools are in.
const SLOW_TOOLS = new Set(['android_wait_for', 'android_screen_record', 'android_install_apk']);

/** A frame to send: text, and whether it carries a request_id we can expect a reply for. */
interface Frame {
  text: string;
  requestId?: string;
}

/** Frames print as a short excerpt in fast-check's counterexample (some are megabytes). */
function frame(text: string, requestId?: string): Frame {
  return {
    text,
    ...(requestId ? { requestId } : {}),
    [fc.toStringMethod]: () =>
      `Frame(${text.length} chars: ${JSON.stringify(text.slice(0, 160))}…${JSON.stringify(text.slice(-60))})`,
  } as Frame;
}

let nextId = 0;
const uniqueRequestId = (): string => `req_fuzz_${++nextId}`;

function deepNesting(depth: number, open: string, close: string, leaf: string): string {
  return `${open.repeat(depth)}${leaf}${close.repeat(depth)}`;
}

function frames(channelId: string, toolIds: string[]): fc.Arbitrary<Frame> {
  const id = fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.constant(''),
    fc.string({ minLength: 250, maxLength: 300 }),
    fc.string({ unit: 'binary', maxLength: 20 }),
  );
  const packetType = fc.oneof(
    fc.constantFrom(
      'connector.hello',
      'channel.open',
      'channel.close',
      'connection.descriptor.get',
      'tool.invoke',
      'auth.start',
      'auth.status',
      'auth.cancel',
      'auth.logout',
      'ping',
      'pong',
      'error',
      'tool.invoke.ack',
      'connection.descriptor.push',
    ),
    fc.string({ maxLength: 140 }),
  );
  const channel = fc.oneof(fc.constant(channelId), fc.constant(channelId), id, fc.constant(undefined));
  const toolId = fc.oneof(fc.constantFrom(...toolIds), fc.string({ maxLength: 30 }), fc.constant('android_shell'));
  const args = fc.oneof(
    fc.object({ maxDepth: 3 }),
    fc.record(
      {
        x: fc.oneof(fc.integer(), fc.double(), fc.string()),
        y: fc.oneof(fc.integer(), fc.double()),
        observe: fc.anything(),
      },
      { requiredKeys: [] },
    ),
    fc.record({
      text: fc.oneof(fc.string({ unit: 'binary', maxLength: 200 }), fc.string({ minLength: 9_000, maxLength: 12_000 })),
    }),
    fc.record(
      { package: fc.string(), key: fc.string(), url: fc.webUrl(), steps: fc.array(fc.anything(), { maxLength: 5 }) },
      { requiredKeys: [] },
    ),
    fc.anything(),
  );
  const payload = fc.oneof(
    fc.record(
      {
        tool_id: toolId,
        arguments: args,
        context: fc.oneof(fc.record({ tool_call_id: id, session_id: id }, { requiredKeys: [] }), fc.anything()),
      },
      { requiredKeys: [] },
    ),
    fc.record(
      {
        connector_card_id: fc.oneof(fc.constant('device.adb'), fc.string()),
        protocol_version: fc.oneof(fc.constantFrom('3.0', '3.9', '2.0', '10.1', ''), fc.string()),
        supported_profiles: fc.oneof(fc.constant(['xagent.device.v1']), fc.anything()),
        connector_id: fc.oneof(fc.string(), fc.anything()),
      },
      { requiredKeys: [] },
    ),
    fc.record(
      {
        flow_id: fc.oneof(fc.constantFrom('desktop_approval', 'device_claim'), fc.string()),
        auth_session_id: id,
        access_code: fc.string(),
      },
      { requiredKeys: [] },
    ),
    fc.dictionary(fc.string(), fc.anything(), { maxKeys: 8 }),
    fc.anything(),
  );
  const envelope = fc
    .record(
      {
        schema: fc.oneof(
          fc.constant('xagent.connector.packet/v1'),
          fc.constant('xagent.connector.packet/v1'),
          fc.string(),
          fc.anything(),
        ),
        packet_id: fc.oneof(id, fc.anything()),
        track: fc.boolean(),
        request_id: fc.oneof(id, fc.anything()),
        reply_to: id,
        connector_channel_id: channel,
        type: fc.oneof(packetType, fc.anything()),
        time: fc.oneof(fc.nat(), fc.integer(), fc.double(), fc.string()),
        payload,
        error: fc.anything(),
      },
      { requiredKeys: ['schema', 'packet_id', 'type', 'track'] },
    )
    .map(({ track, ...fields }): Frame => {
      const requestId = track ? uniqueRequestId() : undefined;
      const packet: Record<string, unknown> = { ...fields, ...(requestId ? { request_id: requestId } : {}) };
      if (packet.connector_channel_id === undefined) delete packet.connector_channel_id;
      return frame(JSON.stringify(packet) ?? 'null', requestId);
    });
  const nested = fc
    .record({
      depth: fc.integer({ min: 100, max: 60_000 }),
      kind: fc.constantFrom('array', 'object'),
      where: fc.constantFrom('arguments', 'payload', 'context'),
    })
    .map(({ depth, kind, where }): Frame => {
      const deep = kind === 'array' ? deepNesting(depth, '[', ']', '1') : deepNesting(depth, '{"a":', '}', '1');
      const requestId = uniqueRequestId();
      const args = where === 'arguments' ? `{"connector_channel_id":${JSON.stringify(channelId)},"x":${deep}}` : '{}';
      const payload =
        where === 'payload'
          ? `{"tool_id":"android_tap","arguments":{},"deep":${deep}}`
          : `{"tool_id":"android_tap","arguments":${args},"context":${where === 'context' ? `{"tool_call_id":${deep}}` : '{}'}}`;
      const text = `{"schema":"xagent.connector.packet/v1","packet_id":"pkt_deep","request_id":"${requestId}","connector_channel_id":${JSON.stringify(channelId)},"type":"tool.invoke","payload":${payload}}`;
      return frame(text, requestId);
    });
  const huge = fc
    .record({
      size: fc.integer({ min: 50_000, max: 600_000 }),
      field: fc.constantFrom('packet_id', 'type', 'request_id', 'payload'),
    })
    .map(({ size, field }): Frame => {
      // Two copies go into a payload: keep the frame under the 1 MiB limit (oversize is tested apart).
      const big = 'x'.repeat(field === 'payload' ? Math.floor(size / 2) : size);
      const requestId = uniqueRequestId();
      const packet: Record<string, unknown> = {
        schema: 'xagent.connector.packet/v1',
        packet_id: 'pkt_big',
        request_id: requestId,
        type: 'ping',
        connector_channel_id: channelId,
      };
      if (field === 'payload') packet.payload = { tool_id: big, arguments: { text: big } };
      else packet[field] = big;
      // A huge request_id is not echoed back (ids are capped), so do not wait for it by id.
      return frame(JSON.stringify(packet), field === 'request_id' ? undefined : requestId);
    });
  return fc.oneof(
    { arbitrary: fc.string({ maxLength: 200 }).map((text): Frame => frame(text)), weight: 1 },
    { arbitrary: fc.string({ unit: 'binary', maxLength: 100 }).map((text): Frame => frame(text)), weight: 1 },
    { arbitrary: fc.json({ maxDepth: 4 }).map((text): Frame => frame(text)), weight: 1 },
    { arbitrary: envelope, weight: 6 },
    { arbitrary: nested, weight: 1 },
    { arbitrary: huge, weight: 1 },
  );
}

describe('hardening: packet fuzz', () => {
  let rig: DeviceRig;
  let client: XAgentClient;
  let observer: XAgentClient;
  let channel: string;

  before(async () => {
    // A fuzzed call that happens to need approval ends as approval_timeout soon (a spec error).
    rig = await startDeviceRig(1, {
      approvalTimeoutMs: 1_000,
      lease: { maxDurationMs: null, idleTimeoutMs: null, disconnectGraceMs: 600_000 },
    });
    client = await XAgentClient.connect(rig.bridge.url, rig.bridge.apiKey);
    observer = await XAgentClient.connect(rig.bridge.url, rig.bridge.apiKey);
    await client.hello();
    await observer.hello();
    channel = await bindChannel(rig, client, rig.device(0).deviceId);
  });
  after(async () => {
    await client?.close();
    await observer?.close();
    await rig?.stop();
  });

  test('fast-check fuzz of packets over a real WebSocket: always a spec error or reply, never a crash or a hang; connections keep working', async () => {
    const toolIds = rig.bridge.core.tools.toolIds().filter((t) => !SLOW_TOOLS.has(t));
    const expected = new Set<string>();
    let closed = false;
    client.ws.on('close', () => (closed = true));
    let runs = 0;
    const t0 = Date.now();
    await fc.assert(
      fc.asyncProperty(frames(channel, toolIds), async (frame) => {
        runs += 1;
        const from = client.received.length;
        if (frame.requestId) expected.add(frame.requestId);
        client.sendRaw(frame.text);
        // A ping right behind it: its pong proves the connection still answers (no hang).
        const pong = await client.request('ping', {}, undefined, 10_000);
        assert.equal(pong.type, 'pong');
        assert.equal(closed, false, `connection closed after ${frame.text.slice(0, 200)}`);
        for (const p of client.received.slice(from)) checkPacket(p, frame.text);
        if (runs % 25 === 0) assert.equal((await observer.request('ping', {})).type, 'pong');
      }),
      { numRuns: RUNS, endOnFailure: true, includeErrorInReport: true },
    );
    // Every tracked request was answered (tools may still have been running at the end).
    await waitUntil(
      () => [...expected].every((id) => client.received.some((p) => p.request_id === id)),
      30_000,
      'every fuzzed request answered',
    );
    for (const p of client.received) checkPacket(p, '(any)');
    assert.deepEqual(client.invalid, [], JSON.stringify(client.invalid.slice(0, 3)));
    assert.deepEqual(observer.invalid, []);
    // The bridge is fine afterwards: the observer gets a real Descriptor, and a fresh connection works.
    const fresh = await XAgentClient.connect(rig.bridge.url, rig.bridge.apiKey);
    try {
      assert.equal((await fresh.hello()).type, 'connector.hello.ack');
    } finally {
      await fresh.close();
    }
    const mem = process.memoryUsage();
    console.log(`# fuzz: ${runs} frames in ${Date.now() - t0} ms, heap ${(mem.heapUsed / 1e6).toFixed(0)} MB`);
  });
});

function checkPacket(p: Packet, sent: string): void {
  if (p.error) {
    assert.ok(KNOWN_CODES.has(p.error.code), `unknown error code ${p.error.code} for ${sent.slice(0, 200)}`);
    assert.notEqual(
      p.error.code,
      'internal_error',
      `internal_error (${p.error.message ?? ''}) for ${sent.slice(0, 200)}`,
    );
  }
}
