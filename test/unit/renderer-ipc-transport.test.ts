import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../renderer/src/api/bridge-api';
import type { AdminEvent, LiveStatus } from '../../renderer/src/api/bridge-api';
import { DEVICE_BRIDGE_IPC_METHODS } from '../../main/contract/ipc-api';
import type { DeviceBridgeIpcApi } from '../../main/contract/ipc-api';
import { createIpcTransport, findIpcBridge } from '../../renderer/src/api/ipc-transport';

/** A preload stand-in: records calls, answers with IpcResult values. */
function fakePreload() {
  const calls: Array<{ name: string; args: unknown }> = [];
  const listeners = new Set<(e: AdminEvent) => void>();
  const ok = <T>(value: T) => Promise.resolve({ ok: true as const, value });
  const record =
    <T>(name: string, value: T) =>
    (args?: unknown) => {
      calls.push({ name, args });
      return ok(value);
    };
  const bridge: DeviceBridgeIpcApi = {
    getState: () => Promise.reject(new Error('unused')),
    decidePairing: record('decidePairing', { status: 'approved' }),
    decideApproval: record('decideApproval', { status: 'denied' }),
    revokeChannel: record('revokeChannel', { status: 'revoked' }),
    extendChannel: record('extendChannel', { status: 'extended' }),
    stopDevice: (args) => {
      calls.push({ name: 'stopDevice', args });
      return Promise.resolve({ ok: false as const, error: { code: 'device_not_found', message: 'no such phone' } });
    },
    checkDevice: record('checkDevice', { device_id: 'dev_1', checked_at: 1, running: false, checks: [] }),
    setDevicePrograms: record('setDevicePrograms', { status: 'disabled', programs: [] }),
    getFastLane: record('getFastLane', { available: true, version: '10.6.6' }),
    getScreenStream: record('getScreenStream', { default: 'ask', available: true, version: '1.1.2' }),
    putScreenStream: record('putScreenStream', { default: 'on', available: true, version: '1.1.2' }),
    getTurnover: record('getTurnover', { claims: true, approvals: false, clear_data: [], devices: {} }),
    putTurnover: record('putTurnover', { claims: true, approvals: true, clear_data: [], devices: {} }),
    setDeviceTurnover: record('setDeviceTurnover', { status: 'dismissed', turnover: null }),
    declinePersonAsk: record('declinePersonAsk', { status: 'declined' }),
    setDeviceTakeover: record('setDeviceTakeover', { status: 'handed_back', taken_over: null }),
    sendDeviceInput: record('sendDeviceInput', { status: 'ok' }),
    setAccessCode: record('setAccessCode', { status: 'ok' }),
    listSecrets: () => ok({ secrets: [] }),
    putSecret: record('putSecret', {
      status: 'created' as const,
      secret: { name: 'lab-login', devices: null, created_at: 1, updated_at: 1 },
    }),
    deleteSecret: record('deleteSecret', { status: 'deleted' }),
    addLanDevice: () => Promise.reject(new Error('unused')),
    forgetLanDevice: record('forgetLanDevice', { status: 'forgotten' }),
    pairLanDevice: record('pairLanDevice', { status: 'paired', message: 'Paired' }),
    getAudit: () => ok({ entries: [] }),
    getLanDiscovered: () => ok({ servers: [], checked_at: 0 }),
    getHosts: () => ok({ hosts: [] }),
    addHost: () =>
      ok({
        status: 'confirm_host_key',
        address: 'ssh://u@h:22',
        host_key: { type: 'ssh-ed25519', fingerprint: 'SHA256:x' },
      }),
    removeHost: () => ok({ status: 'removed' }),
    getSettings: () => Promise.reject(new Error('Error invoking remote method: window closed')),
    patchSettings: record('patchSettings', {} as never),
    revealApiKey: () => ok({ api_key: 'k' }),
    rotateApiKey: () => ok({ api_key: 'k2' }),
    getPolicies: () => Promise.reject(new Error('unused')),
    putPolicies: (p) => ok(p),
    getDeviceScreen: record('getDeviceScreen', new Uint8Array([0xff, 0xd8, 9])),
    getDeviceActions: record('getDeviceActions', { device_id: 'dev_1', capacity: 50, actions: [] }),
    getDeviceFrame: record('getDeviceFrame', {
      bytes: new Uint8Array([0xff, 0xd8, 7]),
      seq: 12,
      at: 1_700_000_000_000,
      screen_width: 1080,
      screen_height: 2400,
      fresh: false,
      lane: 'helper',
    }),
    getActionScreen: record('getActionScreen', new Uint8Array([0xff, 0xd8, 5])),
    listEvidence: record('listEvidence', { evidence: [] }),
    getEvidence: record('getEvidence', {
      format: 'html' as const,
      filename: 'evidence-dev_1-20260101T000000Z.html',
      bytes: new Uint8Array([0x3c, 0x21]),
    }),
    onAdminEvent: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  return { bridge, calls, listeners };
}

void describe('IPC transport (desktop app)', () => {
  void test('calls one named preload function per operation with one argument object', async () => {
    const { bridge, calls } = fakePreload();
    const api = createIpcTransport(bridge);
    await api.decidePairing({ auth_session_id: 'as_1', action: 'approve', device_id: 'dev_1' });
    await api.decideApproval({ approval_id: 'ap_1', decision: 'deny' });
    await api.extendChannel({ connector_channel_id: 'ch_1', extend_ms: 1_800_000 });
    await api.forgetLanDevice({ address: '10.0.0.2:5555' });
    await api.pairLanDevice({ address: '10.0.0.2:37000', code: '123456' });
    await api.patchSettings({ limits: { approval_timeout_ms: 2000, lease_max_duration_ms: null } });
    assert.deepEqual(calls, [
      { name: 'decidePairing', args: { auth_session_id: 'as_1', action: 'approve', device_id: 'dev_1' } },
      { name: 'decideApproval', args: { approval_id: 'ap_1', decision: 'deny' } },
      { name: 'extendChannel', args: { connector_channel_id: 'ch_1', extend_ms: 1_800_000 } },
      { name: 'forgetLanDevice', args: { address: '10.0.0.2:5555' } },
      { name: 'pairLanDevice', args: { address: '10.0.0.2:37000', code: '123456' } },
      { name: 'patchSettings', args: { limits: { approval_timeout_ms: 2000, lease_max_duration_ms: null } } },
    ]);
  });

  void test('errors keep their stable code across IPC', async () => {
    const api = createIpcTransport(fakePreload().bridge);
    await assert.rejects(
      api.stopDevice({ device_id: 'dev_x' }),
      (e: unknown) => e instanceof ApiError && e.code === 'device_not_found' && e.message === 'no such phone',
    );
    await assert.rejects(api.getSettings(), (e: unknown) => e instanceof ApiError && e.code === 'unreachable');
  });

  void test('the phone check is asked for by device_id', async () => {
    const { bridge, calls } = fakePreload();
    const check = await createIpcTransport(bridge).checkDevice({ device_id: 'dev_1' });
    assert.equal(check.device_id, 'dev_1');
    assert.deepEqual(calls.at(-1), { name: 'checkDevice', args: { device_id: 'dev_1' } });
  });

  void test('screen bytes become a JPEG blob', async () => {
    const api = createIpcTransport(fakePreload().bridge);
    const blob = await api.getDeviceScreen({ device_id: 'dev_1' });
    assert.equal(blob.type, 'image/jpeg');
    assert.deepEqual([...new Uint8Array(await blob.arrayBuffer())], [0xff, 0xd8, 9]);
  });

  void test('a live frame keeps its sequence number and screen size; an action picture is asked for by phone and action', async () => {
    const { bridge, calls } = fakePreload();
    const api = createIpcTransport(bridge);
    const frame = await api.getDeviceFrame({ device_id: 'dev_1', max_side: 720, after: 11 });
    assert.deepEqual(calls.at(-1), { name: 'getDeviceFrame', args: { device_id: 'dev_1', max_side: 720, after: 11 } });
    assert.deepEqual(
      [frame.seq, frame.screenWidth, frame.screenHeight, frame.fresh, frame.lane],
      [12, 1080, 2400, false, 'helper'],
    );
    assert.equal(frame.blob.type, 'image/jpeg');
    const shot = await api.getActionScreen({ device_id: 'dev_1', action_id: 'act_1' });
    assert.deepEqual(calls.at(-1), { name: 'getActionScreen', args: { device_id: 'dev_1', action_id: 'act_1' } });
    assert.deepEqual([...new Uint8Array(await shot.arrayBuffer())], [0xff, 0xd8, 5]);
  });

  void test('events flow until unsubscribed; the listener is removed from the preload', () => {
    const { bridge, listeners } = fakePreload();
    const api = createIpcTransport(bridge);
    const events: AdminEvent[] = [];
    const statuses: LiveStatus[] = [];
    const off = api.subscribe(
      (e) => events.push(e),
      (s) => statuses.push(s),
    );
    assert.deepEqual(statuses, ['live']);
    for (const l of listeners) l({ type: 'approval', approval_id: 'a' });
    off();
    off();
    assert.equal(listeners.size, 0);
    assert.deepEqual(events, [{ type: 'approval', approval_id: 'a' }]);
  });

  void test('the method list names every preload function, and the bridge is detected only when real', () => {
    const { bridge } = fakePreload();
    assert.deepEqual([...DEVICE_BRIDGE_IPC_METHODS].sort(), Object.keys(bridge).sort());
    assert.equal(findIpcBridge({ deviceBridge: bridge }), bridge);
    assert.equal(findIpcBridge({}), undefined);
    assert.equal(findIpcBridge({ deviceBridge: { getState: 'nope' } }), undefined);
  });
});
