/**
 * The Devices view's search and filters (renderer/src/features/devices/device-filter.ts): every
 * word must be found in the phone's names or its holder's; host, state, problem and lease narrow.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AdminChannel, AdminDevice } from '../../main/contract/admin-api';
import { filterDevices, NO_FILTERS } from '../../renderer/src/features/devices/device-filter';

function phone(id: string, patch: Partial<AdminDevice>): AdminDevice {
  return {
    device_id: id,
    serial: `SER${id}`,
    adb_server: '127.0.0.1:5037',
    state: 'device',
    reason: null,
    reason_code: null,
    model: 'Pixel 7',
    manufacturer: 'Google',
    android_version: '14',
    transport: 'usb',
    display_name: `Pixel 7 ···${id}`,
    lease: null,
    queue: { running: 0, queued: 0 },
    check: null,
    ...patch,
  };
}

const devices = [
  phone('A001', {}),
  phone('B002', {
    model: 'Galaxy S23',
    manufacturer: 'samsung',
    display_name: 'Galaxy S23 ···B002',
    adb_server: 'ssh://lab@rack-2:22',
  }),
  phone('C003', { state: 'offline', reason: 'SSH link to rack-2:22 lost', adb_server: 'ssh://lab@rack-2:22' }),
  phone('D004', { lease: { connector_channel_id: 'ch_ana_1', since: 1 } }),
  phone('E005', { serial: '127.0.0.1:40001', hardware_serial: 'R58M12AB4F2A', transport: 'tcp' }),
];
const channels = [
  { connector_channel_id: 'ch_ana_1', holder: { requester: 'Ana Lima', claimed_as: 'pixel 7 d004' } } as AdminChannel,
];
const ids = (query: Partial<typeof NO_FILTERS>): string[] =>
  filterDevices({ devices, channels }, { ...NO_FILTERS, ...query }).map((d) => d.device_id);

test('search: label with or without its mark, model, serial, holder; every word must match', () => {
  assert.deepEqual(ids({}), ['A001', 'B002', 'C003', 'D004', 'E005']);
  assert.deepEqual(ids({ query: 'r58m12ab4f2a' }), ['E005'], 'a network phone by its own serial');
  assert.deepEqual(ids({ query: 'SERB002' }), ['B002']);
  assert.deepEqual(ids({ query: 'pixel 7 ···a001' }), ['A001']);
  assert.deepEqual(ids({ query: 'galaxy' }), ['B002']);
  assert.deepEqual(ids({ query: 'ana' }), ['D004']);
  assert.deepEqual(ids({ query: '  PIXEL   c003 ' }), ['C003']);
  assert.deepEqual(ids({ query: 'pixel nowhere' }), []);
});

test('filters: host, state, problem, leased and free', () => {
  assert.deepEqual(ids({ host: 'ssh://lab@rack-2:22' }), ['B002', 'C003']);
  assert.deepEqual(ids({ state: 'offline' }), ['C003']);
  assert.deepEqual(ids({ state: 'problem' }), ['C003']);
  assert.deepEqual(ids({ lease: 'leased' }), ['D004']);
  assert.deepEqual(ids({ lease: 'free', host: 'ssh://lab@rack-2:22', state: 'device' }), ['B002']);
  assert.deepEqual(ids({ lease: 'leased', state: 'problem' }), []);
});
