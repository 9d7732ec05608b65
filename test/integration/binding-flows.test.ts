/**
 * Binding = authentication, and leases, end to end: a spec-following xAgent client →
 * bridge → real adb server → simulated phones. Covers what device-tools.test.ts does not:
 * pairing refresh and expiry, lab claims with access codes and their rate limit, cancel,
 * logout, close/reopen, admin extend/revoke, lease idle/max/grace expiry, unauthorized
 * phones, re-verification after a reconnect and after a restart, and the runtime-lease
 * cascade. Every Descriptor the client receives is checked against the wire schema and
 * for leaked serials or addresses.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startBridge, type TestBridge } from '../helpers/bridge';
import { startDeviceRig, waitUntil, invoke, type DeviceRig } from '../helpers/device-rig';
import { validateDescriptor } from '../helpers/schemas';
import { XAgentClient, type Packet } from '../helpers/xagent-client';
import type { CoreOptionsInput } from '../../main/core/config/core-options';
import type { DeviceRecord } from '../../main/core/devices/device-registry';
import { AdbdServer } from '../../main/sim/adbd-server';
import { createSimulatedPhone } from '../../main/sim/phone';
import { reattachToAdb } from '../../main/sim/sim-farm';

interface Descriptor {
  connection: { status: string; connector_channel_id: string; connector_id: string };
  target: { display_name: string; account_hint?: string };
  tools: Array<{ tool_id: string; status: string; target_permission_state: string; reason?: string }>;
}

const NO_LEASE_LIMITS = { maxDurationMs: null, idleTimeoutMs: null, disconnectGraceMs: 60_000 };

let rig: DeviceRig;
const extraBridges: TestBridge[] = [];
const clients: XAgentClient[] = [];

function descriptorOf(packet: Packet): Descriptor | undefined {
  return packet.payload?.connection_descriptor as Descriptor | undefined;
}

/** Every Descriptor a client received (from packet `from` on): valid against the wire schema, no device facts inside. */
function checkDescriptors(client: XAgentClient, from = 0): number {
  assert.deepEqual(client.invalid, [], 'every packet matches the packet schema');
  const forbidden = rig.farm.phones
    .flatMap((p) => [p.serial, `:${p.port}`])
    .concat(
      rig.phones.map((p) => p.serial),
      ['127.0.0.1'],
    );
  let count = 0;
  for (const packet of client.received.slice(from)) {
    const descriptor = descriptorOf(packet);
    if (!descriptor) continue;
    count += 1;
    assert.deepEqual(validateDescriptor(descriptor), [], `${packet.type}: ${JSON.stringify(descriptor)}`);
    const text = JSON.stringify(descriptor);
    for (const secret of forbidden) assert.ok(!text.includes(secret), `${packet.type} leaks ${secret}: ${text}`);
    assert.match(
      descriptor.target.display_name,
      /^(Pixel 7 ···[0-9A-F]{4}|Galaxy S23 ···[0-9A-F]{4}|Android device \(not bound\))$/,
    );
    if (descriptor.target.account_hint !== undefined) assert.match(descriptor.target.account_hint, /^···[0-9A-F]{4}$/);
  }
  return count;
}

/** How many packets each client had when the running test started. */
let packetsBefore = new Map<XAgentClient, number>();

function markDescriptors(): void {
  packetsBefore = new Map(clients.map((c) => [c, c.received.length]));
}

/** Checks the Descriptors every client received during the test (per test, so a test run alone checks its own). */
function checkTestDescriptors(): void {
  let count = 0;
  for (const client of clients) count += checkDescriptors(client, packetsBefore.get(client) ?? 0);
  assert.ok(count > 0, 'the test received Descriptors to check');
}

async function connect(bridge: TestBridge, connectorId = ''): Promise<XAgentClient> {
  const client = await XAgentClient.connect(bridge.url, bridge.apiKey);
  clients.push(client);
  const hello = await client.hello(connectorId);
  assert.equal(hello.type, 'connector.hello.ack');
  return client;
}

async function open(client: XAgentClient, channelId = ''): Promise<{ channelId: string; descriptor: Descriptor }> {
  const ack = await client.openChannel(channelId);
  assert.equal(ack.type, 'channel.open.ack', JSON.stringify(ack.error));
  return { channelId: String(ack.payload?.connector_channel_id), descriptor: descriptorOf(ack)! };
}

async function describeChannel(client: XAgentClient, channelId: string): Promise<Descriptor> {
  const ack = await client.request('connection.descriptor.get', {}, channelId);
  assert.equal(ack.type, 'connection.descriptor.get.ack', JSON.stringify(ack.error));
  return descriptorOf(ack)!;
}

function waitDescriptor(
  client: XAgentClient,
  channelId: string,
  status: string,
  from: number,
  timeoutMs = 5000,
): Promise<Packet> {
  return client.waitFor(
    (p) =>
      p.type === 'connection.descriptor.push' &&
      p.connector_channel_id === channelId &&
      descriptorOf(p)?.connection.status === status,
    timeoutMs,
    from,
  );
}

/** The bridge's record of farm phone i, once it reads as verified. */
function record(bridge: TestBridge, i: number): DeviceRecord {
  const serial = rig.farm.phones[i]?.serial;
  const found = bridge.core.registry.list().find((d) => d.serial === serial);
  if (!found) throw new Error(`phone ${i} unknown to this bridge`);
  return found;
}

async function phonesVerified(bridge: TestBridge): Promise<void> {
  await waitUntil(
    () =>
      rig.farm.phones.every((p) =>
        bridge.core.registry.list().some((d) => d.serial === p.serial && d.state === 'device' && d.verifiedAt !== null),
      ),
    15_000,
    'phones verified by the bridge',
  );
}

async function extraBridge(options: Partial<CoreOptionsInput>, dataDir?: string): Promise<TestBridge> {
  const bridge = await startBridge(
    { adbServers: [{ host: '127.0.0.1', port: rig.adb.port }], lease: NO_LEASE_LIMITS, ...options },
    dataDir,
  );
  extraBridges.push(bridge);
  await phonesVerified(bridge);
  return bridge;
}

/** desktop_approval, approved in the admin API; returns the channel id and the authenticated ack. */
async function bindByApproval(
  bridge: TestBridge,
  client: XAgentClient,
  phone: number,
  channelId = '',
): Promise<{ channelId: string; descriptor: Descriptor }> {
  const opened = await open(client, channelId);
  const started = await client.request('auth.start', { flow_id: 'desktop_approval' }, opened.channelId);
  assert.equal(started.payload?.status, 'pending', JSON.stringify(started.payload ?? started.error));
  const sessionId = String(started.payload?.auth_session_id);
  const res = await bridge.admin('POST', `/admin/api/pairings/${sessionId}`, {
    action: 'approve',
    device_id: record(bridge, phone).deviceId,
    code: started.payload?.qr_code_text,
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const status = await client.request(
    'auth.status',
    { flow_id: 'desktop_approval', auth_session_id: sessionId },
    opened.channelId,
  );
  assert.equal(status.payload?.status, 'authenticated', JSON.stringify(status.payload));
  return { channelId: opened.channelId, descriptor: descriptorOf(status)! };
}

function claim(client: XAgentClient, channelId: string, device: string, accessCode: string): Promise<Packet> {
  return client.request(
    'auth.start',
    { flow_id: 'device_claim', input: { device, access_code: accessCode } },
    channelId,
  );
}

before(async () => {
  rig = await startDeviceRig(3, { lease: NO_LEASE_LIMITS, adbCommandTimeoutMs: 3000 });
});
after(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  for (const bridge of extraBridges) await bridge.stop().catch(() => undefined);
  for (const phone of rig?.phones ?? []) phone.setHang('getprop', false);
  await rig?.stop();
});

/** Polls an async check until it holds (no fixed sleep beyond the poll step), or fails after 10 s. */
async function waitUntilAsync(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('auth flows', () => {
  let client: XAgentClient;
  before(async () => {
    client = await connect(rig.bridge);
  });
  beforeEach(markDescriptors);
  afterEach(checkTestDescriptors);

  test('desktop_approval: pending carries code, expiry, poll interval and a message; refresh replaces the code', async () => {
    const { channelId, descriptor } = await open(client);
    assert.equal(descriptor.connection.status, 'created');
    const started = await client.request('auth.start', { flow_id: 'desktop_approval' }, channelId);
    assert.equal(started.type, 'auth.start.ack');
    const p = started.payload!;
    assert.equal(p.status, 'pending');
    assert.equal(p.flow_id, 'desktop_approval');
    assert.equal(p.connector_channel_id, channelId);
    const code1 = String(p.qr_code_text);
    assert.match(code1, /^[A-Z2-9]{3}-[A-Z2-9]{3}$/);
    assert.ok(Number(p.expires_at) > Date.now() && Number(p.expires_at) <= Date.now() + 5 * 60_000 + 1000);
    assert.ok(Number(p.poll_interval_millis) >= 500);
    assert.match(String(p.message), new RegExp(`Approve pairing code ${code1} .*on the computer`));
    assert.equal((await describeChannel(client, channelId)).connection.status, 'authenticating');

    const refreshed = await client.request(
      'auth.status',
      { flow_id: 'desktop_approval', auth_session_id: p.auth_session_id, refresh: true },
      channelId,
    );
    assert.equal(refreshed.payload?.status, 'pending');
    const code2 = String(refreshed.payload?.qr_code_text);
    assert.notEqual(code2, code1);
    assert.match(String(refreshed.payload?.message), new RegExp(code2));
    const state = await rig.bridge.admin('GET', '/admin/api/state');
    const pairings = state.body.pairings as Array<{ auth_session_id: string; code: string }>;
    assert.deepEqual(
      pairings.filter((x) => x.auth_session_id === p.auth_session_id).map((x) => x.code),
      [code2],
    );
    assert.ok(!JSON.stringify(state.body.pairings).includes(code1), 'the old code is shown nowhere');
    const stale = await rig.bridge.admin('POST', `/admin/api/pairings/${String(p.auth_session_id)}`, {
      action: 'approve',
      device_id: record(rig.bridge, 0).deviceId,
      code: code1,
    });
    assert.equal(stale.status, 400, 'the old code cannot be approved');
    assert.match(String((stale.body.error as { message: string }).message), /replaced/);
    const still = await client.request(
      'auth.status',
      { flow_id: 'desktop_approval', auth_session_id: p.auth_session_id },
      channelId,
    );
    assert.equal(still.payload?.status, 'pending');

    const ok = await rig.bridge.admin('POST', `/admin/api/pairings/${String(p.auth_session_id)}`, {
      action: 'approve',
      device_id: record(rig.bridge, 0).deviceId,
      code: code2,
    });
    assert.equal(ok.status, 200);
    const done = await client.request(
      'auth.status',
      { flow_id: 'desktop_approval', auth_session_id: p.auth_session_id },
      channelId,
    );
    assert.equal(done.payload?.status, 'authenticated');
    const bound = descriptorOf(done)!;
    assert.equal(bound.connection.status, 'connected');
    assert.equal(bound.target.display_name, 'Pixel 7 ···4F2A');
    assert.equal(bound.target.account_hint, '···4F2A');
    assert.ok(
      bound.tools.length > 5 &&
        bound.tools.every((t) => t.status === 'available' && t.target_permission_state === 'granted'),
    );
    // A refresh of a finished session changes nothing.
    const after = await client.request(
      'auth.status',
      { flow_id: 'desktop_approval', auth_session_id: p.auth_session_id, refresh: true },
      channelId,
    );
    assert.equal(after.payload?.status, 'authenticated');
    assert.equal((await client.request('auth.logout', {}, channelId)).payload?.status, 'ok');
    const unknown = await client.request(
      'auth.status',
      { flow_id: 'desktop_approval', auth_session_id: 'auth_nope' },
      channelId,
    );
    assert.equal(unknown.error?.code, 'auth_session_not_found');
  });

  test('desktop_approval: an unapproved code expires (pushed), cannot be approved, and refresh starts over', async () => {
    const bridge = await extraBridge({ pairingTtlMs: 800 });
    const c = await connect(bridge);
    const { channelId } = await open(c);
    const started = await c.request('auth.start', { flow_id: 'desktop_approval' }, channelId);
    const sessionId = String(started.payload?.auth_session_id);
    assert.ok(Math.abs(Number(started.payload?.expires_at) - (Date.now() + 800)) < 500);
    const from = c.received.length;
    await waitDescriptor(c, channelId, 'created', from, 3000);
    const expired = await c.request(
      'auth.status',
      { flow_id: 'desktop_approval', auth_session_id: sessionId },
      channelId,
    );
    assert.equal(expired.payload?.status, 'expired');
    assert.equal(expired.payload?.qr_code_text, undefined);
    assert.match(String(expired.payload?.message), /expired/);
    const state = await bridge.admin('GET', '/admin/api/state');
    assert.ok(
      !(state.body.pairings as Array<{ auth_session_id: string }>).some((x) => x.auth_session_id === sessionId),
      'no longer offered to the person',
    );
    const late = await bridge.admin('POST', `/admin/api/pairings/${sessionId}`, {
      action: 'approve',
      device_id: record(bridge, 0).deviceId,
    });
    assert.equal(late.status, 400);
    assert.match(String((late.body.error as { message: string }).message), /expired/);
    const refreshed = await c.request(
      'auth.status',
      { flow_id: 'desktop_approval', auth_session_id: sessionId, refresh: true },
      channelId,
    );
    assert.equal(refreshed.payload?.status, 'pending');
    assert.notEqual(refreshed.payload?.qr_code_text, started.payload?.qr_code_text);
    assert.ok(Number(refreshed.payload?.expires_at) > Date.now());
    const ok = await bridge.admin('POST', `/admin/api/pairings/${sessionId}`, {
      action: 'approve',
      device_id: record(bridge, 0).deviceId,
      code: refreshed.payload?.qr_code_text,
    });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    const done = await c.request('auth.status', { flow_id: 'desktop_approval', auth_session_id: sessionId }, channelId);
    assert.equal(done.payload?.status, 'authenticated');
    assert.ok(checkDescriptors(c) > 3);
  });

  test('device_claim: per-phone and pool access codes; wrong code fails clearly; approval-required claims wait for the admin', async () => {
    const phone0 = record(rig.bridge, 0);
    const phone1 = record(rig.bridge, 1);
    const setPhone = await rig.bridge.admin('POST', '/admin/api/access-codes', {
      scope: phone0.deviceId,
      code: 'lab-0000',
      require_approval: false,
    });
    assert.equal(setPhone.status, 200);
    const setPool = await rig.bridge.admin('POST', '/admin/api/access-codes', {
      scope: '*',
      code: 'pool-1234',
      require_approval: true,
    });
    assert.equal(setPool.status, 200);
    const state = await rig.bridge.admin('GET', '/admin/api/state');
    assert.ok(
      !JSON.stringify(state.body).includes('lab-0000') && !JSON.stringify(state.body).includes('pool-1234'),
      'codes are never shown back',
    );
    assert.deepEqual(
      (state.body.access_codes as Array<{ scope: string; require_approval: boolean }>).sort((a, b) =>
        a.scope.localeCompare(b.scope),
      ),
      [
        { scope: '*', require_approval: true },
        { scope: phone0.deviceId, require_approval: false },
      ].sort((a, b) => a.scope.localeCompare(b.scope)),
    );
    assert.ok(!JSON.stringify(await rig.bridge.admin('GET', '/admin/api/state')).includes('salt'));

    const { channelId } = await open(client);
    const short = await rig.bridge.admin('POST', '/admin/api/access-codes', {
      scope: '*',
      code: 'abc1234',
      require_approval: false,
    });
    assert.equal(short.status, 400, 'a code shorter than 8 characters is refused');
    assert.match(JSON.stringify(short.body), /access codes are 8 to 128 characters/);
    const wrong = await claim(client, channelId, 'Pixel 7 ···4F2A', 'lab-9999');
    assert.equal(wrong.payload?.status, 'failed');
    assert.equal(
      wrong.payload?.message,
      'The access code is wrong, or the phone is in use by another channel right now.',
    );
    assert.equal(wrong.payload?.connection_descriptor, undefined);
    assert.equal((await describeChannel(client, channelId)).connection.status, 'created');
    const missing = await claim(client, channelId, 'Nokia 3310', 'lab-0000');
    assert.match(String(missing.payload?.message), /^No phone here goes by "Nokia 3310"/);
    const empty = await claim(client, channelId, '', '');
    assert.equal(empty.payload?.status, 'failed');

    // The per-phone code binds at once, by display name (as the app shows it).
    const right = await claim(client, channelId, 'Pixel 7 ···4F2A', 'lab-0000');
    assert.equal(right.payload?.status, 'authenticated', JSON.stringify(right.payload));
    assert.equal(descriptorOf(right)?.connection.status, 'connected');
    assert.equal(rig.bridge.core.bindings.leaseHolder(phone0.deviceId), channelId);
    // A wrong code for a phone another channel holds fails like any wrong code: no oracle.
    const other = (await open(client)).channelId;
    const guess = await claim(client, other, 'Pixel 7 ···4F2A', 'lab-9999');
    assert.equal(guess.payload?.status, 'failed');
    assert.equal(guess.payload?.message, wrong.payload?.message);
    // The right code for it waits in line (#27), and binds once the holder signs out and the phone is reset.
    const busy = await claim(client, other, 'Pixel 7 ···4F2A', 'lab-0000');
    assert.equal(busy.payload?.status, 'pending', JSON.stringify(busy.payload));
    assert.deepEqual((busy.payload?.line as { position: number } | undefined)?.position, 1);
    assert.equal((await client.request('auth.logout', {}, channelId)).payload?.status, 'ok');
    const busySession = String(busy.payload?.auth_session_id);
    await waitUntil(
      () => rig.bridge.core.bindings.leaseHolder(phone0.deviceId) === other,
      10_000,
      'the claim in line binds',
    );
    const bound = await client.request('auth.status', { flow_id: 'device_claim', auth_session_id: busySession }, other);
    assert.equal(bound.payload?.status, 'authenticated', JSON.stringify(bound.payload));
    assert.equal(rig.bridge.core.bindings.leaseHolder(phone0.deviceId), other);
    assert.equal((await client.request('auth.logout', {}, other)).payload?.status, 'ok');

    // Phone 1 has no code of its own: the pool code applies, and it still needs the person at the computer.
    const pending = await claim(client, channelId, 'Galaxy S23 ···4F2B', 'pool-1234');
    assert.equal(pending.payload?.status, 'pending', JSON.stringify(pending.payload));
    assert.match(String(pending.payload?.message), /Waiting for the person at the computer to approve/);
    assert.equal((await describeChannel(client, channelId)).connection.status, 'authenticating');
    const sessionId = String(pending.payload?.auth_session_id);
    const listed = (await rig.bridge.admin('GET', '/admin/api/state')).body.pairings as Array<{
      auth_session_id: string;
      device_id: string | null;
      flow_id: string;
    }>;
    assert.deepEqual(
      listed.filter((x) => x.auth_session_id === sessionId).map((x) => [x.flow_id, x.device_id]),
      [['device_claim', phone1.deviceId]],
    );
    const stillPending = await client.request(
      'auth.status',
      { flow_id: 'device_claim', auth_session_id: sessionId },
      channelId,
    );
    assert.equal(stillPending.payload?.status, 'pending');
    const from = client.received.length;
    const approve = await rig.bridge.admin('POST', `/admin/api/pairings/${sessionId}`, { action: 'approve' });
    assert.equal(approve.status, 200, JSON.stringify(approve.body));
    await waitDescriptor(client, channelId, 'connected', from, 2000);
    const done = await client.request(
      'auth.status',
      { flow_id: 'device_claim', auth_session_id: sessionId },
      channelId,
    );
    assert.equal(done.payload?.status, 'authenticated');
    assert.equal(descriptorOf(done)?.target.display_name, 'Galaxy S23 ···4F2B');
    assert.equal((await client.request('auth.logout', {}, channelId)).payload?.status, 'ok');
  });

  test('device_claim: ten wrong codes from one caller pause its claims, on every phone and every channel it opens, even with the right code', async () => {
    // A bridge of its own: the pause lasts 5 minutes for this client's address.
    const bridge = await extraBridge({});
    const caller = await connect(bridge);
    const { channelId } = await open(caller);
    const closed = await claim(caller, channelId, 'Galaxy S23 ···4F2B', 'pool-1234');
    assert.match(String(closed.payload?.message), /no access code/);
    assert.equal(
      (await bridge.admin('POST', '/admin/api/access-codes', { scope: '*', code: 'pool-1234', require_approval: true }))
        .status,
      200,
    );
    // Spread over phones and fresh channels: the caller (this client's address) is what counts.
    for (let i = 0; i < 10; i += 1) {
      const channel = i % 2 === 0 ? channelId : (await open(caller)).channelId;
      const wrong = await claim(
        caller,
        channel,
        i % 3 === 0 ? 'Galaxy S23 ···4F2B' : 'Pixel 7 ···4F2C',
        `nope-${i}-xyz`,
      );
      assert.equal(
        wrong.payload?.message,
        'The access code is wrong, or the phone is in use by another channel right now.',
      );
    }
    const freshChannel = (await open(caller)).channelId;
    const blocked = await claim(caller, freshChannel, 'Galaxy S23 ···4F2B', 'pool-1234');
    assert.equal(blocked.payload?.status, 'failed');
    assert.match(
      String(blocked.payload?.message),
      /^Too many wrong access codes from here; claims are paused, try again in (29\d|300) s\.$/,
    );
  });

  test('auth.cancel: canceled, then ignored; not_found; never signs out a bound channel', async () => {
    const { channelId } = await open(client);
    const started = await client.request('auth.start', { flow_id: 'desktop_approval' }, channelId);
    const sessionId = started.payload?.auth_session_id;
    const canceled = await client.request('auth.cancel', { auth_session_id: sessionId }, channelId);
    assert.equal(canceled.type, 'auth.cancel.ack');
    assert.deepEqual(
      [
        canceled.payload?.status,
        canceled.payload?.auth_status,
        canceled.payload?.auth_session_id,
        canceled.payload?.connector_channel_id,
      ],
      ['canceled', 'unauthenticated', sessionId, channelId],
    );
    assert.equal((await describeChannel(client, channelId)).connection.status, 'created');
    const after = await client.request(
      'auth.status',
      { flow_id: 'desktop_approval', auth_session_id: sessionId },
      channelId,
    );
    assert.equal(after.payload?.status, 'failed');
    const late = await rig.bridge.admin('POST', `/admin/api/pairings/${String(sessionId)}`, {
      action: 'approve',
      device_id: record(rig.bridge, 0).deviceId,
    });
    assert.equal(late.status, 400, 'a canceled request cannot be approved');
    const again = await client.request('auth.cancel', { auth_session_id: sessionId }, channelId);
    assert.equal(again.payload?.status, 'ignored');
    // A newer request on the same channel replaces an older one: the older can no longer be approved.
    const older = await client.request('auth.start', { flow_id: 'desktop_approval' }, channelId);
    const newer = await client.request('auth.start', { flow_id: 'desktop_approval' }, channelId);
    assert.equal(newer.payload?.status, 'pending');
    const replaced = await client.request(
      'auth.status',
      { flow_id: 'desktop_approval', auth_session_id: older.payload?.auth_session_id },
      channelId,
    );
    assert.equal(replaced.payload?.status, 'failed');
    assert.match(String(replaced.payload?.message), /Replaced by a newer/);
    const stale = await rig.bridge.admin('POST', `/admin/api/pairings/${String(older.payload?.auth_session_id)}`, {
      action: 'approve',
      device_id: record(rig.bridge, 0).deviceId,
    });
    assert.equal(stale.status, 400);
    assert.equal(
      (await client.request('auth.cancel', { auth_session_id: newer.payload?.auth_session_id }, channelId)).payload
        ?.status,
      'canceled',
    );
    const notFound = await client.request('auth.cancel', { auth_session_id: 'auth_does_not_exist' }, channelId);
    assert.equal(notFound.payload?.status, 'not_found');
    // A session of another channel is not found from this one.
    const other = await open(client);
    const foreign = await client.request('auth.cancel', { auth_session_id: sessionId }, other.channelId);
    assert.equal(foreign.payload?.status, 'not_found');

    // Bound channel: canceling its finished session is ignored and keeps the binding.
    const bound = await bindByApproval(rig.bridge, client, 0, channelId);
    assert.equal(bound.channelId, channelId);
    const sessions = client.received.filter((p) => p.type === 'auth.start.ack' && p.connector_channel_id === channelId);
    const lastSession = sessions.at(-1)?.payload?.auth_session_id;
    const ignored = await client.request('auth.cancel', { auth_session_id: lastSession }, channelId);
    assert.equal(ignored.payload?.status, 'ignored');
    assert.equal(ignored.payload?.auth_status, 'authenticated');
    assert.equal(descriptorOf(ignored)?.connection.status, 'connected');
    const tool = await invoke(client, channelId, 'android_device_status');
    assert.equal(tool.error, undefined, JSON.stringify(tool.error));
    // auth.start on a bound channel answers authenticated at once.
    const restart = await client.request('auth.start', { flow_id: 'desktop_approval' }, channelId);
    assert.equal(restart.payload?.status, 'authenticated');
    assert.equal(descriptorOf(restart)?.connection.status, 'connected');
    const unknownFlow = await client.request('auth.start', { flow_id: 'nope' }, channelId);
    assert.equal(unknownFlow.error?.code, 'auth_flow_unknown');
    await client.request('auth.logout', {}, channelId);
  });

  test('auth.logout ends binding and lease; the phone is free for another channel', async () => {
    const first = await bindByApproval(rig.bridge, client, 1);
    const phone1 = record(rig.bridge, 1).deviceId;
    const blocked = await open(client);
    const started = await client.request('auth.start', { flow_id: 'desktop_approval' }, blocked.channelId);
    const conflict = await rig.bridge.admin('POST', `/admin/api/pairings/${String(started.payload?.auth_session_id)}`, {
      action: 'approve',
      device_id: phone1,
    });
    assert.equal(conflict.status, 409);
    const logout = await client.request('auth.logout', {}, first.channelId);
    assert.equal(logout.type, 'auth.logout.ack');
    assert.equal(logout.payload?.status, 'ok');
    const after = descriptorOf(logout)!;
    assert.equal(after.connection.status, 'created');
    assert.ok(after.tools.every((t) => t.status === 'unavailable'));
    assert.equal(after.target.account_hint, undefined);
    assert.equal(rig.bridge.core.bindings.leaseHolder(phone1), undefined);
    assert.equal((await invoke(client, first.channelId, 'android_device_status')).error?.code, 'not_bound');
    const channels = (await rig.bridge.admin('GET', '/admin/api/state')).body.channels as Array<{
      connector_channel_id: string;
      device_id: string | null;
      descriptor_status: string;
    }>;
    assert.deepEqual(
      channels.filter((c) => c.connector_channel_id === first.channelId).map((c) => [c.device_id, c.descriptor_status]),
      [[null, 'created']],
    );
    // The same pending request can now be approved for that phone.
    const ok = await rig.bridge.admin('POST', `/admin/api/pairings/${String(started.payload?.auth_session_id)}`, {
      action: 'approve',
      device_id: phone1,
    });
    assert.equal(ok.status, 200);
    assert.equal(rig.bridge.core.bindings.leaseHolder(phone1), blocked.channelId);
    await client.request('auth.logout', {}, blocked.channelId);
    // Signing out also ends an authentication still in flight on that channel.
    const inFlight = await client.request('auth.start', { flow_id: 'desktop_approval' }, first.channelId);
    assert.equal((await client.request('auth.logout', {}, first.channelId)).payload?.status, 'ok');
    const ended = await client.request(
      'auth.status',
      { flow_id: 'desktop_approval', auth_session_id: inFlight.payload?.auth_session_id },
      first.channelId,
    );
    assert.equal(ended.payload?.status, 'failed');
    assert.equal((await describeChannel(client, first.channelId)).connection.status, 'created');
  });

  test('channel.close then reopening the same id finds the binding intact', async () => {
    const { channelId } = await bindByApproval(rig.bridge, client, 2);
    const closed = await client.request('channel.close', {}, channelId);
    assert.equal(closed.type, 'channel.close.ack');
    assert.equal(closed.payload?.status, 'ok');
    const routeGone = await client.request('connection.descriptor.get', {}, channelId);
    assert.equal(routeGone.error?.code, 'channel_not_open');
    assert.equal(
      rig.bridge.core.bindings.leaseHolder(record(rig.bridge, 2).deviceId),
      channelId,
      'close keeps the lease',
    );
    const reopened = await open(client, channelId);
    assert.equal(reopened.channelId, channelId);
    assert.equal(reopened.descriptor.connection.status, 'connected');
    assert.equal(reopened.descriptor.target.display_name, 'Pixel 7 ···4F2C');
    assert.equal((await describeChannel(client, channelId)).connection.status, 'connected');
    const tool = await invoke(client, channelId, 'android_device_status');
    assert.equal((tool.payload?.result as { model: string }).model, 'Pixel 7');
    await client.request('auth.logout', {}, channelId);
  });
});

describe('leases', () => {
  let client: XAgentClient;
  before(async () => {
    client = await connect(rig.bridge);
  });
  beforeEach(markDescriptors);
  afterEach(checkTestDescriptors);

  test('admin extend and revoke: revoked is pushed at once and tools[] follow; the channel can authenticate again', async () => {
    const { channelId } = await bindByApproval(rig.bridge, client, 0);
    const extend = await rig.bridge.admin('POST', `/admin/api/channels/${channelId}/extend`, { extend_ms: 60_000 });
    assert.equal(extend.status, 200);
    const badExtend = await rig.bridge.admin('POST', `/admin/api/channels/${channelId}/extend`, { extend_ms: -5 });
    assert.equal(badExtend.status, 400);
    const from = client.received.length;
    const started = Date.now();
    const revoke = await rig.bridge.admin('POST', `/admin/api/channels/${channelId}/revoke`);
    assert.equal(revoke.status, 200);
    const pushed = descriptorOf(await waitDescriptor(client, channelId, 'revoked', from, 1000))!;
    assert.ok(Date.now() - started < 1000);
    assert.ok(
      pushed.tools.every((t) => t.status === 'requires_reauth' && t.target_permission_state === 'requires_reauth'),
    );
    assert.equal((await describeChannel(client, channelId)).connection.status, 'revoked');
    assert.equal(
      rig.bridge.core.bindings.leaseHolder(record(rig.bridge, 0).deviceId),
      undefined,
      'the lease is released',
    );
    assert.equal((await invoke(client, channelId, 'android_tap', { x: 1, y: 1 })).error?.code, 'not_bound');
    const again = await rig.bridge.admin('POST', `/admin/api/channels/${channelId}/revoke`);
    assert.equal(again.status, 404);
    const extendEnded = await rig.bridge.admin('POST', `/admin/api/channels/${channelId}/extend`, { extend_ms: 1000 });
    assert.equal(extendEnded.status, 404);
    // Phone 0 is a lab phone (a code of its own, above): it is reset after the lease, then free.
    const deviceId = record(rig.bridge, 0).deviceId;
    let reset = '';
    await waitUntilAsync(async () => {
      const state = await rig.bridge.admin('GET', '/admin/api/state');
      const phone = (state.body.devices as Array<{ device_id: string; turnover: { state: string } | null }>).find(
        (d) => d.device_id === deviceId,
      );
      reset = phone?.turnover?.state ?? 'none';
      return reset !== 'running' && reset !== 'waiting';
    }, 'the reset after the revoke');
    const rebound = await bindByApproval(rig.bridge, client, 0, channelId);
    assert.equal(rebound.descriptor.connection.status, 'connected');
    await client.request('auth.logout', {}, channelId);
  });

  test('idle timeout: a lease without tool calls expires and is pushed; tool calls keep it alive', async () => {
    // The bridge's clock runs ahead of the wall clock by `skew`, which the test moves by hand.
    let skew = 0;
    const bridge = await extraBridge({
      lease: { maxDurationMs: null, idleTimeoutMs: 1200, disconnectGraceMs: 60_000 },
      clock: () => Date.now() + skew,
    });
    const c = await connect(bridge);
    const busy = await bindByApproval(bridge, c, 1);
    const idle = await bindByApproval(bridge, c, 2);
    const from = c.received.length;
    // 2 s go by in steps of 400 ms, the busy lease making a tool call after each.
    for (let step = 0; step < 5; step++) {
      skew += 400;
      assert.equal(
        (await invoke(c, busy.channelId, 'android_device_status')).error,
        undefined,
        `busy call after ${skew} ms`,
      );
    }
    // The check that ended the idle lease judged the busy one in the same pass.
    const expired = descriptorOf(await waitDescriptor(c, idle.channelId, 'expired', from, 3000))!;
    assert.ok(expired.tools.every((t) => t.status === 'requires_reauth'));
    assert.equal((await describeChannel(c, busy.channelId)).connection.status, 'connected');
    assert.equal(bridge.core.bindings.leaseHolder(record(bridge, 2).deviceId), undefined);
    assert.equal((await invoke(c, idle.channelId, 'android_device_status')).error?.code, 'not_bound');
    // Once the calls stop, the busy lease ends too, one idle timeout after its last call.
    skew += 1200;
    await waitDescriptor(c, busy.channelId, 'expired', from, 3000);
    assert.ok(checkDescriptors(c) > 4);
  });

  test('maximum duration: the lease ends at its cap, and an admin extension moves the cap', async () => {
    const bridge = await extraBridge({
      lease: { maxDurationMs: 1500, idleTimeoutMs: null, disconnectGraceMs: 60_000 },
    });
    const c = await connect(bridge);
    // Counted from before the bindings: on a busy machine the short lease may end before the second binding is done.
    const from = c.received.length;
    const plain = await bindByApproval(bridge, c, 1);
    const plainAt = Date.now();
    const extended = await bindByApproval(bridge, c, 2);
    const extendedAt = Date.now();
    const before = (
      (await bridge.admin('GET', '/admin/api/state')).body.channels as Array<{
        connector_channel_id: string;
        lease_expires_at: number;
      }>
    ).find((x) => x.connector_channel_id === extended.channelId)!;
    assert.equal(
      (await bridge.admin('POST', `/admin/api/channels/${extended.channelId}/extend`, { extend_ms: 1500 })).status,
      200,
    );
    const after = (
      (await bridge.admin('GET', '/admin/api/state')).body.channels as Array<{
        connector_channel_id: string;
        lease_expires_at: number;
      }>
    ).find((x) => x.connector_channel_id === extended.channelId)!;
    assert.equal(after.lease_expires_at - before.lease_expires_at, 1500);
    await waitDescriptor(c, plain.channelId, 'expired', from, 4000);
    const plainEnded = Date.now() - plainAt;
    assert.ok(plainEnded >= 1400, `ended after ${plainEnded} ms`);
    assert.equal((await describeChannel(c, extended.channelId)).connection.status, 'connected');
    await waitDescriptor(c, extended.channelId, 'expired', from, 4000);
    assert.ok(Date.now() - extendedAt >= 2900);
    assert.ok(checkDescriptors(c) > 4);
  });

  test('disconnect grace: offline pushed at once; past the grace the binding ends', async (t) => {
    const bridge = await extraBridge({ lease: { maxDurationMs: null, idleTimeoutMs: null, disconnectGraceMs: 1000 } });
    const c = await connect(bridge);
    const { channelId } = await bindByApproval(bridge, c, 1);
    const from = c.received.length;
    const started = Date.now();
    await rig.farm.phones[1]!.server.goOffline();
    try {
      const offline = descriptorOf(await waitDescriptor(c, channelId, 'offline', from, 3000))!;
      const offlineMs = Date.now() - started;
      assert.ok(offline.tools.every((t) => t.status === 'unavailable' && t.reason !== undefined));
      await waitDescriptor(c, channelId, 'expired', from, 4000);
      const expiredMs = Date.now() - started;
      assert.ok(expiredMs >= 1000, `expired after ${expiredMs} ms`);
      assert.equal(bridge.core.bindings.leaseHolder(record(bridge, 1).deviceId), undefined);
      t.diagnostic(`offline pushed after ${offlineMs} ms; expired after ${expiredMs} ms (grace 1000 ms)`);
    } finally {
      await rig.farm.bringOnline(1);
    }
    await phonesVerified(bridge);
    assert.equal(
      (await describeChannel(c, channelId)).connection.status,
      'expired',
      'a phone coming back does not revive an ended lease',
    );
    assert.ok(checkDescriptors(c) > 2);
  });

  test('unauthorized phone: offline with tools denied by the target; authorized again → connected', async () => {
    const { channelId } = await bindByApproval(rig.bridge, client, 0);
    const from = client.received.length;
    rig.farm.phones[0]!.server.setUnauthorized(true);
    try {
      // adb first loses the phone (offline), then meets the key prompt (unauthorized).
      const denied = await client.waitFor(
        (p) =>
          p.type === 'connection.descriptor.push' &&
          p.connector_channel_id === channelId &&
          descriptorOf(p)?.tools[0]?.status === 'denied_by_target',
        5000,
        from,
      );
      const pushed = descriptorOf(denied)!;
      assert.equal(pushed.connection.status, 'offline');
      assert.ok(
        pushed.tools.every(
          (t) =>
            t.status === 'denied_by_target' &&
            t.target_permission_state === 'denied' &&
            /USB debugging key/.test(t.reason ?? ''),
        ),
        JSON.stringify(pushed.tools[0]),
      );
      assert.equal((await invoke(client, channelId, 'android_device_status')).error?.code, 'device_unauthorized');
    } finally {
      rig.farm.phones[0]!.server.authorize();
    }
    await waitDescriptor(client, channelId, 'connected', from, 15_000);
    assert.equal((await invoke(client, channelId, 'android_device_status')).error, undefined);
    await client.request('auth.logout', {}, channelId);
  });

  test('a phone that returns is verified by a real command before the Descriptor says connected', async () => {
    const { channelId } = await bindByApproval(rig.bridge, client, 0);
    const phone = rig.phones[0]!;
    const from = client.received.length;
    phone.setHang('getprop', true);
    try {
      await rig.farm.phones[0]!.server.goOffline();
      await waitDescriptor(client, channelId, 'offline', from, 3000);
      await rig.farm.bringOnline(0);
      await waitUntil(() => record(rig.bridge, 0).state === 'device', 5000, 'adb reports the phone again');
      const verifying = await describeChannel(client, channelId);
      assert.equal(verifying.connection.status, 'offline');
      assert.match(verifying.tools[0]?.reason ?? '', /verifying/);
      assert.equal((await invoke(client, channelId, 'android_device_status')).error?.code, 'device_offline');
      assert.ok(
        !client.received
          .slice(from)
          .some((p) => p.connector_channel_id === channelId && descriptorOf(p)?.connection.status === 'connected'),
      );
    } finally {
      phone.setHang('getprop', false);
    }
    await waitDescriptor(client, channelId, 'connected', from, 10_000);
    assert.ok(record(rig.bridge, 0).verifiedAt !== null);
    await client.request('auth.logout', {}, channelId);
  });
});

describe('restart and the runtime lease', () => {
  test('bridge restarted with the same data dir: bindings, leases and channels restored, re-verified before connected', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'binding-restart-'));
    try {
      const first = await extraBridge({}, dataDir);
      const c1 = await connect(first);
      const connectorId = c1.connectorId;
      const { channelId } = await bindByApproval(first, c1, 2);
      const deviceId = record(first, 2).deviceId;
      const unbound = (await open(c1)).channelId;
      assert.ok(checkDescriptors(c1) > 0);
      await c1.close();
      // The phone is gone while the bridge is down, and answers no command when it is back.
      await rig.farm.phones[2]!.server.goOffline();
      rig.phones[2]!.setHang('getprop', true);
      await first.stop();
      const persisted = JSON.parse(readFileSync(join(dataDir, 'state.json'), 'utf8')) as {
        channels: Record<string, { binding: { deviceId: string } | null }>;
      };
      assert.equal(persisted.channels[channelId]?.binding?.deviceId, deviceId);

      const second = await startBridge(
        { adbServers: [{ host: '127.0.0.1', port: rig.adb.port }], lease: NO_LEASE_LIMITS, adbCommandTimeoutMs: 2000 },
        dataDir,
      );
      extraBridges.push(second);
      const c2 = await connect(second, connectorId);
      assert.equal(c2.connectorId, connectorId, 'the runtime instance is resumed');
      const reopened = await open(c2, channelId);
      assert.equal(reopened.channelId, channelId);
      assert.equal(reopened.descriptor.connection.status, 'offline');
      assert.equal(reopened.descriptor.target.display_name, 'Pixel 7 ···4F2C');
      assert.equal(second.core.bindings.leaseHolder(deviceId), channelId, 'the lease survived');
      assert.equal((await open(c2, unbound)).descriptor.connection.status, 'created');
      const from = c2.received.length;
      await rig.farm.bringOnline(2);
      await waitUntil(() => second.core.registry.get(deviceId)?.state === 'device', 5000, 'phone listed again');
      // adb says `device`, but the phone has not answered a command in this process yet.
      assert.equal((await describeChannel(c2, channelId)).connection.status, 'offline');
      assert.equal(second.core.registry.get(deviceId)?.verifiedAt, null);
      rig.phones[2]!.setHang('getprop', false);
      await waitDescriptor(c2, channelId, 'connected', from, 10_000);
      assert.ok(
        !c2.received
          .slice(from, -1)
          .some((p) => p.connector_channel_id === channelId && descriptorOf(p)?.connection.status === 'connected'),
      );
      const tool = await invoke(c2, channelId, 'android_device_status');
      assert.equal((tool.payload?.result as { model: string }).model, 'Pixel 7');
      // Still exclusive after the restart.
      const other = await open(c2);
      const started = await c2.request('auth.start', { flow_id: 'desktop_approval' }, other.channelId);
      const conflict = await second.admin('POST', `/admin/api/pairings/${String(started.payload?.auth_session_id)}`, {
        action: 'approve',
        device_id: deviceId,
      });
      assert.equal(conflict.status, 409);
      assert.ok(checkDescriptors(c2) > 3);
      await second.stop();
    } finally {
      rig.phones[2]!.setHang('getprop', false);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('a different phone answering at the bound phone’s address is not taken for it', async () => {
    const bridge = await extraBridge({});
    const c = await connect(bridge);
    const { channelId } = await bindByApproval(bridge, c, 1);
    const entry = rig.farm.phones[1]!;
    const deviceId = record(bridge, 1).deviceId;
    const from = c.received.length;
    await entry.server.goOffline();
    const impostorPhone = createSimulatedPhone({ serial: 'IMPOSTOR77Q9', model: 'Galaxy S23' });
    let impostor: AdbdServer | undefined;
    try {
      impostor = await AdbdServer.start({ phone: impostorPhone, port: entry.port });
      await reattachToAdb({ host: '127.0.0.1', port: rig.adb.port }, entry.port);
      await waitUntil(() => bridge.core.registry.get(deviceId)?.verifiedAt != null, 10_000, 'the impostor read');
      const pushed = descriptorOf(await waitDescriptor(c, channelId, 'error', from, 3000))!;
      assert.equal(pushed.target.display_name, 'Galaxy S23 ···4F2B', 'still names the bound phone');
      assert.match(pushed.tools[0]?.reason ?? '', /different phone/);
      assert.ok(
        !c.received
          .slice(from)
          .some((p) => p.connector_channel_id === channelId && descriptorOf(p)?.connection.status === 'connected'),
      );
      impostorPhone.clearArgvLog();
      assert.equal((await invoke(c, channelId, 'android_tap', { x: 10, y: 10 })).error?.code, 'not_bound');
      assert.deepEqual(
        impostorPhone.argvLog.filter((argv) => argv[0] === 'input'),
        [],
        'nothing ran on the impostor',
      );
    } finally {
      await impostor?.close();
      impostorPhone.close();
      await rig.farm.bringOnline(1);
    }
    await waitDescriptor(c, channelId, 'connected', from, 10_000);
    assert.ok(checkDescriptors(c) > 3);
  });

  test('a corrupt state file is kept aside and reported, never silently wiped', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'binding-corrupt-'));
    try {
      writeFileSync(join(dataDir, 'state.json'), '{"version":1,"channels":{"cch_x":');
      const bridge = await startBridge({ adbServers: [{ host: '127.0.0.1', port: rig.adb.port }] }, dataDir);
      extraBridges.push(bridge);
      const kept = readdirSync(dataDir).filter((name) => name.startsWith('state.json.corrupt-'));
      assert.equal(kept.length, 1);
      assert.equal(readFileSync(join(dataDir, kept[0]!), 'utf8'), '{"version":1,"channels":{"cch_x":');
      const warnings = (await bridge.admin('GET', '/admin/api/state')).body.warnings as string[];
      assert.ok(
        warnings.some((w) => w.includes(kept[0]!)),
        JSON.stringify(warnings),
      );
      await bridge.stop();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('runtime lease expiry: channels unbound through the logout path, leases released, a new runtime id', async () => {
    const bridge = await extraBridge({ runtimeLeaseMs: 1500 });
    const c1 = await connect(bridge);
    const oldConnector = c1.connectorId;
    const bound = await bindByApproval(bridge, c1, 1);
    const pending = await open(c1);
    const started = await c1.request('auth.start', { flow_id: 'desktop_approval' }, pending.channelId);
    const ended: Array<[string, string]> = [];
    bridge.core.bindings.on('ended', (channelId, _deviceId, reason) => ended.push([channelId, reason]));
    assert.ok(checkDescriptors(c1) > 0);
    await c1.close();
    await waitUntil(() => bridge.core.runtime.connectorId() === null, 5000, 'runtime lease expiry');
    assert.deepEqual(ended, [[bound.channelId, 'runtime_lease_expired']]);
    assert.equal(bridge.core.bindings.leaseHolder(record(bridge, 1).deviceId), undefined, 'the phone is free');
    const state = (await bridge.admin('GET', '/admin/api/state')).body;
    assert.deepEqual(state.channels, []);
    assert.deepEqual(state.pairings, []);
    const late = await bridge.admin('POST', `/admin/api/pairings/${String(started.payload?.auth_session_id)}`, {
      action: 'approve',
      device_id: record(bridge, 2).deviceId,
    });
    assert.ok(late.status >= 400, 'unfinished auth sessions were canceled');

    const c2 = await connect(bridge, oldConnector);
    assert.notEqual(c2.connectorId, oldConnector, 'a later hello creates a new runtime instance');
    const reopened = await open(c2, bound.channelId);
    assert.notEqual(reopened.channelId, bound.channelId, 'the old channel is unknown now');
    assert.equal(reopened.descriptor.connection.status, 'created');
    const rebound = await bindByApproval(bridge, c2, 1, reopened.channelId);
    assert.equal(rebound.descriptor.connection.status, 'connected');
    assert.ok(checkDescriptors(c2) > 1);
  });
});
