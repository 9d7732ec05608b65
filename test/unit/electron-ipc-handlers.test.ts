import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createIpcHandlers, type IpcHandlerDeps } from '../../main/electron/ipc-handlers';
import type { AdminOperationName } from '../../main/contract/admin-operations';
import { ipcChannel } from '../../main/contract/ipc-api';
import { BridgeError } from '../../main/core/errors';
import { startBridge, type TestBridge } from '../helpers/bridge';

const TRUSTED = { trusted: true };
const STRANGER = { trusted: false };

function harness(overrides: Partial<IpcHandlerDeps> = {}) {
  const calls: Array<{ name: string; args: Record<string, unknown> }> = [];
  const after: string[] = [];
  const deps: IpcHandlerDeps = {
    isTrusted: (event) => (event as { trusted?: boolean }).trusted === true,
    invoke: async (name, args) => {
      calls.push({ name, args });
      return { status: 'ok', name };
    },
    afterCall: (name) => after.push(name),
    ...overrides,
  };
  const handlers = createIpcHandlers(deps);
  const handler = (name: AdminOperationName) => {
    const h = handlers.get(ipcChannel(name));
    assert.ok(h, `handler for ${name}`);
    return h;
  };
  return { calls, after, handlers, handler };
}

describe('Electron IPC handlers (sender check, arguments, routing, errors)', () => {
  test('a caller that is not our window gets permission_denied and nothing runs', async () => {
    const h = harness();
    for (const [channel, handler] of h.handlers) {
      const result = await handler(STRANGER, { auth_session_id: 'x', action: 'approve' });
      assert.deepEqual(result, { ok: false, error: { code: 'permission_denied', message: 'unknown sender' } }, channel);
    }
    assert.equal(h.calls.length, 0);
    assert.equal(h.after.length, 0);
  });

  test('each named function reaches its admin operation, path parameters as given', async () => {
    const h = harness();
    const r = await h.handler('decidePairing')(TRUSTED, {
      auth_session_id: 'auth/../x',
      action: 'approve',
      device_id: 'dev_1',
    });
    assert.equal(r.ok, true);
    assert.deepEqual(h.calls[0], {
      name: 'decidePairing',
      args: { auth_session_id: 'auth/../x', action: 'approve', device_id: 'dev_1' },
    });
    await h.handler('revokeChannel')(TRUSTED, { connector_channel_id: 'cch_1' });
    assert.deepEqual(h.calls[1], { name: 'revokeChannel', args: { connector_channel_id: 'cch_1' } });
    await h.handler('getState')(TRUSTED, undefined);
    assert.deepEqual(h.calls[2], { name: 'getState', args: {} });
    await h.handler('putPolicies')(TRUSTED, { defaults: {}, per_device: {}, sensitive_apps: [] });
    assert.equal(h.calls[3]?.name, 'putPolicies');
    await h.handler('patchSettings')(TRUSTED, { limits: { queue_max_depth: 4 } });
    assert.deepEqual(h.calls[4], { name: 'patchSettings', args: { limits: { queue_max_depth: 4 } } });
    assert.deepEqual(h.after, ['decidePairing', 'revokeChannel', 'getState', 'putPolicies', 'patchSettings']);
  });

  test('the argument must be one plain, modest object', async () => {
    const h = harness();
    for (const bad of [[1, 2], 'text', 42, new Date(), new Map()]) {
      const r = await h.handler('getState')(TRUSTED, bad);
      assert.equal(r.ok, false);
      assert.equal((r as { error: { code: string } }).error.code, 'invalid_arguments');
    }
    const big = await h.handler('setAccessCode')(TRUSTED, {
      scope: 'x',
      code: 'y'.repeat(300 * 1024),
      require_approval: false,
    });
    assert.equal((big as { error: { code: string } }).error.code, 'invalid_arguments');
    assert.equal(h.calls.length, 0);
  });

  test('the thumbnail comes back as bytes', async () => {
    const seen: unknown[] = [];
    const h = harness({ invoke: async (name, args) => (seen.push([name, args]), new Uint8Array([1, 2, 3])) });
    const r = await h.handler('getDeviceScreen')(TRUSTED, { device_id: 'dev_9' });
    assert.deepEqual(r, { ok: true, value: new Uint8Array([1, 2, 3]) });
    assert.deepEqual(seen, [['getDeviceScreen', { device_id: 'dev_9' }]]);
  });

  test('bridge errors keep their code; anything else is an internal_error without details', async () => {
    const coded = harness({
      invoke: async () => {
        throw new BridgeError('lease_conflict', 'the phone is bound to another channel');
      },
    });
    assert.deepEqual(await coded.handler('decidePairing')(TRUSTED, { auth_session_id: 'a', action: 'approve' }), {
      ok: false,
      error: { code: 'lease_conflict', message: 'the phone is bound to another channel' },
    });
    assert.deepEqual(coded.after, [], 'afterCall only after success');
    const crash = harness({
      invoke: async () => {
        throw new Error('ENOENT /home/someone/secret/path');
      },
    });
    const r = await crash.handler('getSettings')(TRUSTED, {});
    assert.deepEqual(r, { ok: false, error: { code: 'internal_error', message: 'internal error' } });
  });

  test('desktop-only warnings are added to the state', async () => {
    const h = harness({
      invoke: async () => ({ warnings: ['core says'] }),
      extraWarnings: () => ['keyring unavailable'],
    });
    const r = await h.handler('getState')(TRUSTED, {});
    assert.deepEqual(r, { ok: true, value: { warnings: ['core says', 'keyring unavailable'] } });
    const other = await h.handler('getSettings')(TRUSTED, {});
    assert.deepEqual(other, { ok: true, value: { warnings: ['core says'] } });
  });

  describe('against a real core', () => {
    let bridge: TestBridge;
    before(async () => {
      bridge = await startBridge();
    });
    after(async () => {
      await bridge?.stop();
    });

    test('getState, getSettings and an unknown pairing go through AdminRouter.invoke', async () => {
      const h = harness({ invoke: (name, args) => bridge.core.admin.invoke(name, args) });
      const state = await h.handler('getState')(TRUSTED, undefined);
      assert.equal(state.ok, true);
      assert.ok(Array.isArray((state as { value: { devices: unknown[] } }).value.devices));
      const settings = await h.handler('getSettings')(TRUSTED, undefined);
      assert.equal((settings as { value: { base_url: string } }).value.base_url, bridge.url);
      const missing = await h.handler('decidePairing')(TRUSTED, { auth_session_id: 'auth_nope', action: 'deny' });
      assert.equal(missing.ok, false);
      assert.notEqual((missing as { error: { code: string } }).error.code, 'internal_error');
    });
  });
});
