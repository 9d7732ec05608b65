/**
 * One set of real samples of what the bridge sends — the Card, Descriptors in several
 * states, a packet of every type it sends, tool results — checked against the project's own
 * wire schemas (main/contract/) and, when the spec folder is found, against the official JSON
 * Schemas with ajv. Broken copies of the samples must be refused, so neither check passes
 * by accepting everything.
 *
 * The spec folder: $XAGENT_SPEC_DIR, else ../shared/spec beside the repository. Without it the
 * official check is skipped with one line and everything else still runs.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Ajv2020 from 'ajv/dist/2020';
import { deliveredFileSchema, OUTGOING_PACKET_TYPES } from '../../main/contract/outgoing-packets';
import {
  connectorCardSchema,
  connectionDescriptorSchema,
  descriptorCardMismatches,
  schemaIssues,
} from '../../main/contract/wire-schemas';
import { startDeviceRig, invoke, type DeviceRig } from '../helpers/device-rig';
import { validateCard, validateDescriptor, validatePacket } from '../helpers/schemas';
import { XAgentClient, type Packet } from '../helpers/xagent-client';

type Json = Record<string, any>;
type Validate = (value: unknown) => string[];

const REPO_ROOT = resolve(__dirname, '..', '..');
const SPEC_DIR = process.env.XAGENT_SPEC_DIR || join(REPO_ROOT, '..', 'shared', 'spec');
const OFFICIAL_FILES = {
  card: 'xagent.connector.v1.schema.json',
  descriptor: 'xagent.connection.v2.schema.json',
  packet: 'xagent.connector.packet.v1.schema.json',
} as const;
type Kind = keyof typeof OFFICIAL_FILES;

/** The official validators, or undefined when the spec folder (with its schemas) is not there. */
function loadOfficial(): Record<Kind, Validate> | undefined {
  const dir = join(SPEC_DIR, 'schemas');
  if (!Object.values(OFFICIAL_FILES).every((name) => existsSync(join(dir, name)))) return undefined;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  const compile = (name: string): Validate => {
    const validate = ajv.compile(JSON.parse(readFileSync(join(dir, name), 'utf8')) as object);
    return (value) =>
      validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''}`);
  };
  return {
    card: compile(OFFICIAL_FILES.card),
    descriptor: compile(OFFICIAL_FILES.descriptor),
    packet: compile(OFFICIAL_FILES.packet),
  };
}

const OURS: Record<Kind, Validate> = { card: validateCard, descriptor: validateDescriptor, packet: validatePacket };

interface Samples {
  card: Json;
  packets: Packet[];
  descriptors: Array<{ from: string; descriptor: Json }>;
  results: Array<{ toolId: string; result: Json }>;
}

let rig: DeviceRig;
let client: XAgentClient;
let samples: Samples;

function payloadOf(packet: Packet): Json {
  return packet.payload ?? {};
}

async function request(type: string, payload: Json, channelId?: string): Promise<Packet> {
  const reply = await client.request(type, payload, channelId);
  assert.ok(reply.type === `${type}.ack` || type === 'ping', `${type}: ${JSON.stringify(reply)}`);
  return reply;
}

function pushed(channelId: string, status: string, from: number): Promise<Packet> {
  return client.waitFor(
    (p) =>
      p.type === 'connection.descriptor.push' &&
      p.connector_channel_id === channelId &&
      payloadOf(p).connection_descriptor?.connection.status === status,
    10_000,
    from,
  );
}

/** desktop_approval from start to authenticated, keeping every packet on the way. */
async function bind(channelId: string): Promise<void> {
  const from = client.received.length;
  const started = await request('auth.start', { flow_id: 'desktop_approval' }, channelId);
  assert.equal(payloadOf(started).status, 'pending');
  await pushed(channelId, 'authenticating', from);
  const sessionId = String(payloadOf(started).auth_session_id);
  const polled = await request('auth.status', { flow_id: 'desktop_approval', auth_session_id: sessionId }, channelId);
  assert.equal(payloadOf(polled).status, 'pending');
  const approved = await rig.bridge.admin('POST', `/admin/api/pairings/${sessionId}`, {
    action: 'approve',
    device_id: rig.device(0).deviceId,
  });
  assert.equal(approved.status, 200, JSON.stringify(approved.body));
  const done = await request('auth.status', { flow_id: 'desktop_approval', auth_session_id: sessionId }, channelId);
  assert.equal(payloadOf(done).status, 'authenticated');
}

/** Drives one channel through the life the spec describes and keeps everything the bridge sent. */
async function gatherSamples(): Promise<Samples> {
  const card = (await (await fetch(`${rig.bridge.url}/connector-card.json`)).json()) as Json;
  await client.hello();
  await request('ping', {});
  const unsupported = await client.request('no.such.packet', {});
  assert.equal(unsupported.error?.code, 'unsupported_packet');
  const before = client.received.length;
  client.sendRaw('{not json');
  await client.waitFor((p) => p.type === 'error' && p.error?.code === 'invalid_packet', 5000, before);

  const opened = await request('channel.open', {}, '');
  const channelId = String(payloadOf(opened).connector_channel_id);
  await request('connection.descriptor.get', {}, channelId);
  assert.equal((await invoke(client, channelId, 'android_tap', { x: 1, y: 1 })).error?.code, 'not_bound');
  assert.equal(
    (await request('auth.cancel', { auth_session_id: 'auth_unknown' }, channelId)).payload?.status,
    'not_found',
  );
  await bind(channelId);
  await request('auth.start', { flow_id: 'desktop_approval' }, channelId); // already bound: authenticated at once

  for (const [toolId, args] of [
    ['android_device_status', {}],
    ['android_screenshot', { format: 'png' }],
    ['android_screen_record', { seconds: 1 }],
    ['android_tap', { x: 10, y: 10 }],
  ] as const) {
    const ack = await invoke(client, channelId, toolId, args);
    assert.equal(ack.type, 'tool.invoke.ack');
    assert.equal(ack.error, undefined, `${toolId}: ${JSON.stringify(ack.error)}`);
  }
  // The phone refuses injected input: degraded, the input tools denied by the target with a reason; then back.
  const phone = rig.phones[0]!;
  let marked = client.received.length;
  phone.setQuirks(['inject-events-denied']);
  assert.equal((await invoke(client, channelId, 'android_tap', { x: 10, y: 10 })).error?.code, 'input_blocked');
  await pushed(channelId, 'degraded', marked);
  phone.setQuirks([]);
  marked = client.received.length;
  assert.equal((await invoke(client, channelId, 'android_tap', { x: 10, y: 10 })).error, undefined);
  await pushed(channelId, 'connected', marked);
  assert.equal((await invoke(client, channelId, 'android_no_such_tool')).error?.code, 'unknown_tool');
  await client.waitFor((p) => p.type === 'tool.progress.push', 5000);

  // The phone refuses this computer: offline, tools denied by the target; then back.
  let from = client.received.length;
  const server = rig.farm.phones[0]!.server;
  server.setUnauthorized(true);
  try {
    await client.waitFor(
      (p) =>
        p.type === 'connection.descriptor.push' &&
        payloadOf(p).connection_descriptor?.tools?.[0]?.status === 'denied_by_target',
      10_000,
      from,
    );
  } finally {
    server.authorize();
  }
  await pushed(channelId, 'connected', from);

  from = client.received.length;
  assert.equal((await rig.bridge.admin('POST', `/admin/api/channels/${channelId}/revoke`)).status, 200);
  await pushed(channelId, 'revoked', from);

  // A second pairing, canceled; then sign out and close.
  const again = await request('auth.start', { flow_id: 'desktop_approval' }, channelId);
  assert.equal(
    (await request('auth.cancel', { auth_session_id: payloadOf(again).auth_session_id }, channelId)).payload?.status,
    'canceled',
  );
  await request('auth.logout', {}, channelId);
  await request('channel.close', {}, channelId);

  const packets = [...client.received];
  return {
    card,
    packets,
    descriptors: packets.flatMap((p) =>
      payloadOf(p).connection_descriptor
        ? [{ from: p.type, descriptor: payloadOf(p).connection_descriptor as Json }]
        : [],
    ),
    results: packets.flatMap((p) =>
      p.type === 'tool.invoke.ack' && !p.error
        ? [{ toolId: String(payloadOf(p).tool_id), result: payloadOf(p).result as Json }]
        : [],
    ),
  };
}

/**
 * Broken copies of real samples: `where` starts the path our schemas must name; `officialToo`:
 * the official schemas can see the fault as well (the others are rules they cannot express).
 */
function brokenSamples(
  s: Samples,
): Array<{ what: string; where: string; kind: Kind; value: Json; officialToo: boolean }> {
  const card = (): Json => structuredClone(s.card);
  const descriptor = (): Json =>
    structuredClone(s.descriptors.find((d) => d.descriptor.connection.status === 'connected')!.descriptor);
  const packet = (type: string): Json => structuredClone(s.packets.find((p) => p.type === type && !p.error)!);
  const edit = <T extends Json>(value: T, change: (v: T) => void): T => {
    change(value);
    return value;
  };
  return [
    {
      what: 'Card without connector_card_id',
      where: 'connector_card_id',
      kind: 'card',
      value: edit(card(), (c) => delete c.connector_card_id),
      officialToo: true,
    },
    {
      what: 'Card of protocol 2.0',
      where: 'protocol_version',
      kind: 'card',
      value: edit(card(), (c) => (c.protocol_version = '2.0')),
      officialToo: true,
    },
    {
      what: 'Card whose tools is an object',
      where: 'tools',
      kind: 'card',
      value: edit(card(), (c) => (c.tools = { android_tap: c.tools[0] })),
      officialToo: true,
    },
    {
      what: 'Card tool not requiring connector_channel_id',
      where: 'tools.0.input_schema.required',
      kind: 'card',
      value: edit(card(), (c) => (c.tools[0].input_schema.required = [])),
      officialToo: true,
    },
    {
      what: 'Card tool_id with a space',
      where: 'tools.0.tool_id',
      kind: 'card',
      value: edit(card(), (c) => (c.tools[0].tool_id = 'android tap')),
      officialToo: true,
    },
    {
      what: 'Card with a tool twice',
      where: `tools.${s.card.tools.length}.tool_id`,
      kind: 'card',
      value: edit(card(), (c) => c.tools.push(c.tools[0])),
      officialToo: false,
    },
    {
      what: 'Card tool of an undeclared profile',
      where: 'tools.0.profile',
      kind: 'card',
      value: edit(card(), (c) => (c.tools[0].profile = 'xagent.im.v2')),
      officialToo: false,
    },
    {
      what: 'Card with server_base_url',
      where: 'server_base_url',
      kind: 'card',
      value: edit(card(), (c) => (c.server_base_url = 'http://127.0.0.1:8765')),
      officialToo: false,
    },
    {
      what: 'Descriptor without connection.status',
      where: 'connection.status',
      kind: 'descriptor',
      value: edit(descriptor(), (d) => delete d.connection.status),
      officialToo: true,
    },
    {
      what: 'Descriptor of status "online"',
      where: 'connection.status',
      kind: 'descriptor',
      value: edit(descriptor(), (d) => (d.connection.status = 'online')),
      officialToo: true,
    },
    {
      what: 'Descriptor xagent.connection/v1',
      where: 'schema',
      kind: 'descriptor',
      value: edit(descriptor(), (d) => (d.schema = 'xagent.connection/v1')),
      officialToo: true,
    },
    {
      what: 'Descriptor whose profiles is a string',
      where: 'connection.profiles',
      kind: 'descriptor',
      value: edit(descriptor(), (d) => (d.connection.profiles = 'xagent.device.v1')),
      officialToo: true,
    },
    {
      what: 'Descriptor tool of status "ok"',
      where: 'tools.0.status',
      kind: 'descriptor',
      value: edit(descriptor(), (d) => (d.tools[0].status = 'ok')),
      officialToo: true,
    },
    {
      what: 'packet xagent.connector.packet/v2',
      where: 'schema',
      kind: 'packet',
      value: edit(packet('pong'), (p) => (p.schema = 'xagent.connector.packet/v2')),
      officialToo: true,
    },
    {
      what: 'packet without packet_id',
      where: 'packet_id',
      kind: 'packet',
      value: edit(packet('pong'), (p) => delete p.packet_id),
      officialToo: true,
    },
    {
      what: 'packet whose time is a string',
      where: 'time',
      kind: 'packet',
      value: edit(packet('pong'), (p) => (p.time = new Date().toISOString())),
      officialToo: true,
    },
    {
      what: 'error packet whose error has no code',
      where: 'error.code',
      kind: 'packet',
      value: edit(structuredClone(s.packets.find((p) => p.type === 'error')!) as Json, (p) => delete p.error.code),
      officialToo: true,
    },
    {
      what: 'hello ack of protocol 2.0',
      where: 'payload.protocol_version',
      kind: 'packet',
      value: edit(packet('connector.hello.ack'), (p) => (p.payload.protocol_version = '2.0')),
      officialToo: false,
    },
    {
      what: 'ack without request_id',
      where: 'request_id',
      kind: 'packet',
      value: edit(packet('channel.close.ack'), (p) => delete p.request_id),
      officialToo: false,
    },
    {
      what: 'packet type the Connector never sends',
      where: 'type',
      kind: 'packet',
      value: edit(packet('pong'), (p) => (p.type = 'chat.message')),
      officialToo: false,
    },
    {
      what: 'channel.open.ack of another channel',
      where: 'payload.connection_descriptor.connection.connector_channel_id',
      kind: 'packet',
      value: edit(
        packet('channel.open.ack'),
        (p) => (p.payload.connection_descriptor.connection.connector_channel_id = 'cch_other'),
      ),
      officialToo: false,
    },
    {
      what: 'tool result with the image inline',
      where: 'payload.result.image',
      kind: 'packet',
      value: edit(
        packet('tool.invoke.ack'),
        (p) => (p.payload.result.image = `data:image/png;base64,${Buffer.alloc(64).toString('base64')}`),
      ),
      officialToo: false,
    },
  ];
}

describe('what the bridge sends, against our schemas and the official ones', () => {
  before(async () => {
    rig = await startDeviceRig(1);
    client = await XAgentClient.connect(rig.bridge.url, rig.bridge.apiKey);
    samples = await gatherSamples();
  });
  after(async () => {
    await client?.close();
    await rig?.stop();
  });

  test('the samples cover every packet type the bridge sends and several Descriptor states', () => {
    const types = new Set(samples.packets.map((p) => p.type));
    assert.deepEqual(
      OUTGOING_PACKET_TYPES.filter((type) => !types.has(type)),
      [],
    );
    const states = new Set(samples.descriptors.map((d) => d.descriptor.connection.status));
    for (const state of ['created', 'authenticating', 'connected', 'offline', 'revoked'])
      assert.ok(states.has(state), `a ${state} Descriptor`);
    const toolStates = new Set(samples.descriptors.flatMap((d) => (d.descriptor.tools as Json[]).map((t) => t.status)));
    for (const state of ['available', 'unavailable', 'denied_by_target', 'requires_reauth'])
      assert.ok(toolStates.has(state), `a tool ${state}`);
  });

  test("every sample passes the project's own schemas", () => {
    assert.deepEqual(validateCard(samples.card), []);
    const card = connectorCardSchema.parse(samples.card);
    for (const { from, descriptor } of samples.descriptors) {
      assert.deepEqual(validateDescriptor(descriptor), [], `${from}: ${JSON.stringify(descriptor)}`);
      assert.deepEqual(descriptorCardMismatches(card, connectionDescriptorSchema.parse(descriptor)), [], from);
    }
    for (const packet of samples.packets)
      assert.deepEqual(validatePacket(packet), [], JSON.stringify(packet).slice(0, 500));
    assert.deepEqual(client.invalid, []);
  });

  test('tool results match the output_schema their Card tool declares; files come by reference', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    const declared = new Map(
      (samples.card.tools as Json[]).map((tool) => [tool.tool_id as string, ajv.compile(tool.output_schema as object)]),
    );
    for (const { toolId, result } of samples.results) {
      const validate = declared.get(toolId);
      assert.ok(validate, `${toolId} is in the Card`);
      assert.ok(validate(result), `${toolId}: ${ajv.errorsText(validate.errors)}`);
    }
    for (const toolId of ['android_screenshot', 'android_screen_record']) {
      const sample = samples.results.find((r) => r.toolId === toolId);
      assert.ok(sample, `a ${toolId} result`);
      assert.deepEqual(schemaIssues(deliveredFileSchema, sample.result), [], toolId);
    }
  });

  test('official JSON Schemas accept every sample and refuse the broken ones', (t) => {
    const official = loadOfficial();
    if (!official) {
      t.skip(
        `official schemas not found in ${SPEC_DIR} (set XAGENT_SPEC_DIR or put the spec at ../shared/spec): checked against the project's own schemas only`,
      );
      return;
    }
    assert.deepEqual(official.card(samples.card), []);
    for (const { from, descriptor } of samples.descriptors) assert.deepEqual(official.descriptor(descriptor), [], from);
    for (const packet of samples.packets)
      assert.deepEqual(official.packet(packet), [], JSON.stringify(packet).slice(0, 500));
    for (const broken of brokenSamples(samples).filter((b) => b.officialToo)) {
      assert.notDeepEqual(official[broken.kind](broken.value), [], `the official schema accepts: ${broken.what}`);
    }
  });

  test('our schemas refuse broken copies of the samples', () => {
    for (const broken of brokenSamples(samples)) {
      const issues = OURS[broken.kind](broken.value);
      assert.ok(
        issues.some((issue) => issue.startsWith(broken.where)),
        `${broken.what}: expected an issue at ${broken.where}, got ${JSON.stringify(issues)}`,
      );
    }
  });
});
