/**
 * What the console's connect guide reads from the runtime: whether an xAgent is connected now
 * and since when, and whether one has ever said hello — kept across a restart and after the
 * runtime lease forgot the connector, so the console keeps opening on Devices once it has.
 */
import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConnectorRuntime } from '../../main/core/runtime/connector-runtime';
import { StateStore } from '../../main/core/store/state-store';

function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'runtime-hello-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function runtimeOn(store: StateStore, clock: () => number, runtimeLeaseMs = 60_000): ConnectorRuntime {
  return new ConnectorRuntime({ store, runtimeLeaseMs, clock, onChannelUnregistered: () => undefined });
}

void describe('connector runtime: hello record', () => {
  void test('a fresh bridge has never heard hello; a hello is recorded and connected_since follows the data planes', (t) => {
    const dir = tempDir(t);
    let now = 1_000;
    const store = new StateStore(dir);
    const runtime = runtimeOn(store, () => now);
    assert.equal(runtime.lastHelloAt(), null);
    assert.equal(runtime.connectedSince(), null);

    now = 2_000;
    runtime.acceptHello(undefined);
    const first = {};
    runtime.attachDataPlane(first);
    assert.equal(runtime.lastHelloAt(), 2_000);
    assert.equal(runtime.connectedSince(), 2_000);
    // A second data plane of the same xAgent does not move "connected since".
    now = 3_000;
    const second = {};
    runtime.acceptHello(runtime.connectorId() ?? undefined);
    runtime.attachDataPlane(second);
    assert.equal(runtime.connectedSince(), 2_000);
    assert.equal(runtime.lastHelloAt(), 3_000);
    runtime.detachDataPlane(first);
    assert.equal(runtime.connectedSince(), 2_000, 'still connected through the second');
    runtime.detachDataPlane(second);
    assert.equal(runtime.connectedSince(), null);
    runtime.stop();
    store.flush();

    // After a restart the hello is remembered, nobody is connected.
    const reopened = runtimeOn(new StateStore(dir), () => now);
    assert.equal(reopened.lastHelloAt(), 3_000);
    assert.equal(reopened.connectedSince(), null);
  });

  void test('the runtime lease expiring forgets the connector, not that xAgent once said hello', async (t) => {
    const dir = tempDir(t);
    const store = new StateStore(dir);
    const runtime = runtimeOn(store, Date.now, 1);
    runtime.acceptHello(undefined);
    const plane = {};
    runtime.attachDataPlane(plane);
    runtime.detachDataPlane(plane);
    await new Promise<void>((resolve) => runtime.once('changed', resolve));
    assert.equal(runtime.connectorId(), null, 'the lease expired');
    assert.notEqual(runtime.lastHelloAt(), null);
    runtime.stop();
  });

  void test('a state file written before the hello was recorded counts a known connector as having said hello', (t) => {
    const dir = tempDir(t);
    writeFileSync(
      join(dir, 'state.json'),
      JSON.stringify({ version: 1, connector: { connectorId: 'conn_old', lastSeenAt: 42 }, channels: {} }),
    );
    assert.equal(runtimeOn(new StateStore(dir), Date.now).lastHelloAt(), 42);
    writeFileSync(
      join(dir, 'state.json'),
      JSON.stringify({ version: 1, connector: { connectorId: null, lastSeenAt: null }, channels: {} }),
    );
    assert.equal(runtimeOn(new StateStore(dir), Date.now).lastHelloAt(), null);
  });
});
