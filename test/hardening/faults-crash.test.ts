/**
 * Hardening — the bridge process itself dies: `kill -9` in the middle of a side-effecting
 * call and a restart on the same data dir (the retry is never executed twice), and a
 * damaged state file (the bridge starts, keeps it aside and says so).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAdbServer } from '../helpers/adb-server';
import { startBridge } from '../helpers/bridge';
import { XAgentClient } from '../helpers/xagent-client';
import { startSimFarm } from '../../main/sim/sim-farm';
import { createSimulatedPhone, type SimulatedPhone } from '../../main/sim/phone';
import { bindWith, CHILD_API_KEY, invokeWith, openHarmlessApp, startChildBridge, type ChildBridge } from './helpers';

const TAP =
  (x: number) =>
  (a: string[]): boolean =>
    a[0] === 'input' && a[1] === 'tap' && a[2] === String(x);

async function readyDevice(bridge: ChildBridge, serial: string): Promise<string> {
  let deviceId = '';
  const deadline = Date.now() + 20_000;
  while (!deviceId) {
    const state = await bridge.admin('GET', '/admin/api/state');
    const device = (
      state.body.devices as Array<{ device_id: string; serial: string; state: string; model: string | null }>
    ).find((d) => d.serial === serial);
    if (device?.state === 'device' && device.model) deviceId = device.device_id;
    else if (Date.now() > deadline)
      throw new Error(`phone ${serial} never ready: ${JSON.stringify(state.body.devices)}`);
    else await new Promise((r) => setTimeout(r, 50));
  }
  return deviceId;
}

describe('hardening: bridge crash and damaged state', () => {
  test('bridge kill -9 mid side-effecting call, restarted on the same data dir, the same call retried: never executed twice', async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'bridge-kill9-'));
    const adb = await startAdbServer();
    let phone: SimulatedPhone | undefined;
    // usb-phone timing: `input` is logged when it starts and takes effect 300 ms later, so the
    // kill lands while the tap is on its way.
    const farm = await startSimFarm({
      count: 1,
      adb: { host: '127.0.0.1', port: adb.port },
      createPhone: () => (phone = createSimulatedPhone({ serial: 'SIMKILL9', profile: 'usb-phone' })),
    });
    const bridges: ChildBridge[] = [];
    const clients: XAgentClient[] = [];
    t.after(async () => {
      for (const c of clients) await c.close().catch(() => undefined);
      for (const b of bridges) await b.kill9();
      await farm.stop();
      await adb.stop();
      rmSync(dataDir, { recursive: true, force: true });
    });
    const serial = farm.phones[0]!.serial;

    const first = await startChildBridge(dataDir, adb.port);
    bridges.push(first);
    const deviceId = await readyDevice(first, serial);
    const c1 = await XAgentClient.connect(first.url, CHILD_API_KEY);
    clients.push(c1);
    await c1.hello();
    const channel = await bindWith((m, p, b) => first.admin(m, p, b), c1, deviceId);
    await openHarmlessApp(c1, channel);

    // A finished call whose ack may or may not have reached xAgent before the crash.
    const finishedId = `call_k9_done_${process.pid}`;
    const finished = await invokeWith(c1, channel, 'android_tap', { x: 21, y: 210 }, finishedId);
    assert.equal(finished.error, undefined, JSON.stringify(finished.error));

    // A call in progress when the bridge is killed: kill -9 the moment the phone starts the tap.
    const inFlightId = `call_k9_mid_${process.pid}`;
    const killed = new Promise<void>((resolve) => {
      const onCommand = (argv: string[]): void => {
        if (!TAP(31)(argv)) return;
        phone!.events.off('command', onCommand);
        void first.kill9().then(resolve);
      };
      phone!.events.on('command', onCommand);
    });
    void invokeWith(c1, channel, 'android_tap', { x: 31, y: 310 }, inFlightId, 5_000).catch(() => undefined);
    await killed;
    assert.equal(first.child.signalCode, 'SIGKILL');
    assert.equal(phone!.argvLog.filter(TAP(31)).length, 1, 'the tap reached the phone once');

    const second = await startChildBridge(dataDir, adb.port);
    bridges.push(second);
    await readyDevice(second, serial);
    const c2 = await XAgentClient.connect(second.url, CHILD_API_KEY);
    clients.push(c2);
    const hello = await c2.hello(c1.connectorId);
    assert.equal(hello.payload?.connector_id, c1.connectorId);
    const reopened = await c2.openChannel(channel);
    assert.equal(reopened.payload?.connector_channel_id, channel);

    const retryMid = await invokeWith(c2, channel, 'android_tap', { x: 31, y: 310 }, inFlightId);
    assert.equal(retryMid.error?.code, 'outcome_unknown', JSON.stringify(retryMid));
    const retryDone = await invokeWith(c2, channel, 'android_tap', { x: 21, y: 210 }, finishedId);
    assert.deepEqual(retryDone.payload, finished.payload, 'the stored result, not a new run');
    // A second restart keeps the unknown outcome unknown.
    const retryMidAgain = await invokeWith(c2, channel, 'android_tap', { x: 31, y: 310 }, inFlightId);
    assert.equal(retryMidAgain.error?.code, 'outcome_unknown');

    assert.equal(phone!.argvLog.filter(TAP(31)).length, 1, 'never executed twice');
    assert.equal(phone!.argvLog.filter(TAP(21)).length, 1, 'never executed twice');
    // The bridge works normally afterwards, and no secret was ever printed.
    const fresh = await invokeWith(c2, channel, 'android_tap', { x: 41, y: 410 }, `call_k9_new_${process.pid}`);
    assert.equal(fresh.error, undefined, JSON.stringify(fresh.error));
    for (const b of bridges) {
      assert.ok(!b.output().includes(CHILD_API_KEY), 'API key never printed');
    }
  });

  test('state file truncated or corrupted: the bridge starts, keeps the damaged file aside and says so', async () => {
    const damages: Array<[string, (path: string) => void]> = [
      ['truncated', (path) => truncateSync(path, Math.floor(readFileSync(path).length / 2))],
      ['garbage bytes', (path) => writeFileSync(path, Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0x22, 0x01]))],
      ['wrong shape', (path) => writeFileSync(path, JSON.stringify({ version: 99, channels: 'nope' }))],
      ['empty', (path) => writeFileSync(path, '')],
    ];
    for (const [what, damage] of damages) {
      const dataDir = mkdtempSync(join(tmpdir(), 'bridge-corrupt-'));
      try {
        // A first run leaves a real state file (with a connector_id and a channel).
        const first = await startBridge({}, dataDir);
        const client = await XAgentClient.connect(first.url, first.apiKey);
        await client.hello();
        await client.openChannel('');
        await client.close();
        await first.stop();
        const statePath = join(dataDir, 'state.json');
        assert.ok(existsSync(statePath));
        const before = readFileSync(statePath);
        damage(statePath);
        const damaged = readFileSync(statePath);

        const second = await startBridge({}, dataDir);
        try {
          const warnings = second.core.warnings();
          assert.equal(warnings.length, 1, `${what}: ${JSON.stringify(warnings)}`);
          assert.match(
            warnings[0]!,
            /^The state file was damaged \([^\n]+\); it was kept aside as .*state\.json\.corrupt-\d+/,
          );
          const state = await second.admin('GET', '/admin/api/state');
          assert.equal(state.status, 200);
          assert.deepEqual(state.body.warnings, warnings);
          const aside = readdirSync(dataDir).filter((f) => f.startsWith('state.json.corrupt-'));
          assert.equal(aside.length, 1, what);
          assert.deepEqual(
            readFileSync(join(dataDir, aside[0]!)),
            damaged,
            `${what}: the damaged bytes are kept as they were`,
          );
          assert.notDeepEqual(damaged, before);
          // It works from empty state and writes a fresh, valid file.
          const c = await XAgentClient.connect(second.url, second.apiKey);
          const ack = await c.hello();
          assert.equal(ack.type, 'connector.hello.ack');
          assert.equal((await c.openChannel('')).type, 'channel.open.ack');
          await c.close();
          assert.equal((JSON.parse(readFileSync(statePath, 'utf8')) as { version: number }).version, 1);
        } finally {
          await second.stop();
        }
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    }
  });

  test('tool-call journal with a torn last line: the bridge starts and earlier records still answer', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'bridge-journal-'));
    try {
      const line = (k: string, s: 'started' | 'done') =>
        JSON.stringify({
          k,
          h: 'h',
          s,
          t: Date.now(),
          ...(s === 'done' ? { a: { payload: { tool_id: 'android_tap', result: {} } } } : {}),
        });
      writeFileSync(
        join(dataDir, 'tool-calls.jsonl'),
        `${line('cch_x\ncall_1', 'done')}\n${line('cch_x\ncall_2', 'started')}\n{"k":"cch_x\\ncall_3","h":"h","s":"do`,
      );
      const bridge = await startBridge({}, dataDir);
      try {
        const client = await XAgentClient.connect(bridge.url, bridge.apiKey);
        assert.equal((await client.hello()).type, 'connector.hello.ack');
        await client.close();
        const compacted = readFileSync(join(dataDir, 'tool-calls.jsonl'), 'utf8').trim().split('\n');
        assert.equal(compacted.length, 2, 'the torn line is dropped, the two whole records kept');
        assert.ok(compacted.every((l) => JSON.parse(l) as unknown));
      } finally {
        await bridge.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
