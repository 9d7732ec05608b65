/**
 * BindingService on its own: a channel bound to a phone by the person's approval holds that
 * phone's lease alone, the lease ends after its idle timeout on an injected clock (tool calls
 * keep it alive), and a revoke ends it at once with a Descriptor that says so. Real state
 * store (temp folder), connector runtime and device registry; no adb, no sockets.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BindingService } from '../../main/core/bindings/binding-service';
import { DeviceRegistry } from '../../main/core/devices/device-registry';
import { BridgeError } from '../../main/core/errors';
import { ConnectorRuntime } from '../../main/core/runtime/connector-runtime';
import type { PersistedChannel } from '../../main/core/store/state-store';
import { StateStore } from '../../main/core/store/state-store';

const IDLE_MS = 60_000;

/** The connection status the channel's Descriptor shows. */
function statusOf(bindings: BindingService, channel: PersistedChannel): unknown {
  return (bindings.describe(channel).connection as { status?: unknown } | undefined)?.status;
}

describe('BindingService', () => {
  const dirs: string[] = [];
  const services: BindingService[] = [];
  // The sweep's interval is unref'd (it must not keep a stopping bridge alive); here this
  // keeps the process running while a test waits for the sweep's event.
  let keepAlive: NodeJS.Timeout | undefined;
  before(() => {
    keepAlive = setInterval(() => undefined, 60_000);
  });
  after(() => {
    clearInterval(keepAlive);
    for (const service of services) service.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  function setup(): {
    bindings: BindingService;
    runtime: ConnectorRuntime;
    clock: { now: number };
    pushed: Array<{ channelId: string; status: unknown }>;
    phone: string;
    openChannel: () => PersistedChannel;
    bind: (channel: PersistedChannel, deviceId?: string) => void;
  } {
    const dir = mkdtempSync(join(tmpdir(), 'binding-service-'));
    dirs.push(dir);
    const clock = { now: 1_800_000_000_000 };
    const now = (): number => clock.now;
    const store = new StateStore(dir);
    const registry = new DeviceRegistry(now);
    const runtime = new ConnectorRuntime({
      store,
      runtimeLeaseMs: 3_600_000,
      clock: now,
      onChannelUnregistered: () => undefined,
    });
    runtime.acceptHello(undefined);
    const pushed: Array<{ channelId: string; status: unknown }> = [];
    const bindings = new BindingService({
      store,
      runtime,
      registry,
      toolIds: () => ['android_tap', 'android_screenshot'],
      lease: { maxDurationMs: null, idleTimeoutMs: IDLE_MS, disconnectGraceMs: 60_000 },
      pairingTtlMs: 300_000,
      push: (channelId, descriptor) =>
        pushed.push({ channelId, status: (descriptor.connection as { status?: unknown } | undefined)?.status }),
      clock: now,
    });
    services.push(bindings);
    const device = registry.upsertState('127.0.0.1:5037', 'SERIAL0001', 'device');
    registry.setFacts(device.deviceId, { model: 'Pixel 7', manufacturer: 'Google', androidVersion: '14', sdk: 34 });
    return {
      bindings,
      runtime,
      clock,
      pushed,
      phone: device.deviceId,
      openChannel: () => runtime.openChannel(undefined).channel,
      bind: (channel, deviceId = device.deviceId) => {
        const session = bindings.startDesktopApproval(channel);
        const decided = bindings.decidePairing(session.authSessionId, {
          action: 'approve',
          deviceId,
          code: session.code,
        });
        assert.equal(decided.status, 'authenticated');
      },
    };
  }

  test('approved: the channel is bound and connected, and holds the phone’s lease alone', () => {
    const { bindings, runtime, phone, openChannel, bind } = setup();
    const channel = openChannel();
    const session = bindings.startDesktopApproval(channel);
    assert.equal(session.status, 'pending');
    assert.equal(statusOf(bindings, channel), 'authenticating');
    bindings.decidePairing(session.authSessionId, { action: 'approve', deviceId: phone, code: session.code });

    const bound = bindings.activeBinding(channel.id);
    assert.equal(bound?.deviceId, phone);
    assert.equal(bound?.displayName.startsWith('Pixel 7'), true);
    assert.equal(bindings.leaseHolder(phone), channel.id);
    assert.equal(statusOf(bindings, runtime.channel(channel.id)!), 'connected');

    // A second channel cannot take the leased phone.
    const other = openChannel();
    assert.throws(
      () => bind(other),
      (e) => e instanceof BridgeError && e.code === 'lease_conflict',
    );
    assert.equal(bindings.leaseHolder(phone), channel.id);
  });

  test('idle timeout on the injected clock: tool calls keep the lease alive; without them it expires and the phone is free', async () => {
    const { bindings, clock, pushed, phone, openChannel, bind } = setup();
    const channel = openChannel();
    bind(channel);
    bindings.start();

    // Activity just before the timeout moves the idle clock.
    clock.now += IDLE_MS - 1_000;
    bindings.touch(channel.id);
    clock.now += IDLE_MS - 1_000;
    assert.ok(bindings.activeBinding(channel.id), 'still bound: the last call was under the timeout ago');

    const ended = once(bindings, 'ended');
    clock.now += 1_000;
    const [channelId, deviceId, reason] = (await ended) as [string, string, string];
    assert.deepEqual([channelId, deviceId, reason], [channel.id, phone, 'expired']);
    assert.equal(bindings.activeBinding(channel.id), undefined);
    assert.equal(bindings.leaseHolder(phone), undefined);
    assert.deepEqual(pushed.at(-1), { channelId: channel.id, status: 'expired' }, 'the Descriptor push says why');

    // The phone is free for another channel.
    const next = openChannel();
    bind(next);
    assert.equal(bindings.leaseHolder(phone), next.id);
  });

  test('revoke ends the lease at once, is pushed as revoked, and the channel can authenticate again', () => {
    const { bindings, pushed, phone, openChannel, bind } = setup();
    const channel = openChannel();
    bind(channel);
    const ended: string[] = [];
    bindings.on('ended', (_channelId, _deviceId, reason) => ended.push(reason));

    bindings.revoke(channel.id);
    assert.deepEqual(ended, ['revoked']);
    assert.equal(bindings.leaseHolder(phone), undefined);
    assert.deepEqual(pushed.at(-1), { channelId: channel.id, status: 'revoked' });
    assert.throws(
      () => bindings.revoke(channel.id),
      (e) => e instanceof BridgeError && e.code === 'connection_not_found',
    );

    bind(channel);
    assert.equal(bindings.leaseHolder(phone), channel.id);
  });
});
