/**
 * The preload (preload/index.ts) run against a stand-in `electron`: the page gets one function
 * per operation of the contract's table plus the event listener, each function sends on its
 * own channel only, and a page that is not the app's own gets nothing.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { ADMIN_OPERATION_NAMES } from '../../main/contract/admin-operations';
import { DEVICE_BRIDGE_IPC_METHODS, IPC_EVENT_CHANNEL, ipcChannel } from '../../main/contract/ipc-api';
import type { AdminEvent } from '../../main/contract/admin-api';

const exposed = new Map<string, Record<string, (...args: unknown[]) => unknown>>();
const invoked: Array<{ channel: string; args: unknown }> = [];
const renderer = Object.assign(new EventEmitter(), {
  invoke: (channel: string, args: unknown) => {
    invoked.push({ channel, args });
    return Promise.resolve({ ok: true, value: channel });
  },
});
const electronPath = require.resolve('electron');
require.cache[electronPath] = {
  id: electronPath,
  filename: electronPath,
  loaded: true,
  exports: {
    contextBridge: { exposeInMainWorld: (key: string, api: never) => exposed.set(key, api) },
    ipcRenderer: renderer,
  },
} as unknown as NodeModule;

/** Runs the preload afresh in a page at `origin`; answers what it exposed. */
function loadPreloadIn(origin: string): Record<string, (...args: unknown[]) => unknown> | undefined {
  exposed.clear();
  const url = new URL(origin);
  (globalThis as { window?: unknown }).window = { location: { protocol: url.protocol, host: url.host } };
  const path = require.resolve('../../preload/index');
  delete require.cache[path];
  // The preload runs once per page: loading it again is how a test opens another page.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  require(path);
  return exposed.get('deviceBridge');
}

void describe('preload', () => {
  void test('exposes one function per operation of the table, each invoking its own channel', async () => {
    const api = loadPreloadIn('app://bridge/index.html');
    assert.ok(api, 'the app page gets deviceBridge');
    assert.deepEqual(Object.keys(api).sort(), [...DEVICE_BRIDGE_IPC_METHODS].sort());
    for (const name of ADMIN_OPERATION_NAMES) {
      invoked.length = 0;
      const args = { device_id: `dev for ${name}` };
      assert.deepEqual(await api[name]!(args), { ok: true, value: ipcChannel(name) });
      assert.deepEqual(invoked, [{ channel: ipcChannel(name), args }], name);
    }
  });

  void test('admin events reach the listener until it is removed', () => {
    const api = loadPreloadIn('app://bridge/index.html')!;
    const seen: AdminEvent[] = [];
    const remove = api.onAdminEvent!((event: AdminEvent) => seen.push(event)) as () => void;
    renderer.emit(IPC_EVENT_CHANNEL, {}, { type: 'state' });
    remove();
    renderer.emit(IPC_EVENT_CHANNEL, {}, { type: 'approval', approval_id: 'a' });
    assert.deepEqual(seen, [{ type: 'state' }]);
    assert.equal(renderer.listenerCount(IPC_EVENT_CHANNEL), 0);
  });

  void test('a page that is not the app gets nothing', () => {
    assert.equal(loadPreloadIn('https://example.com/'), undefined);
    assert.equal(loadPreloadIn('app://other/index.html'), undefined);
  });
});
