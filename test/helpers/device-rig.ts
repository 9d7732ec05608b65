/**
 * The whole path a real phone takes, for integration tests: a private adb server, simulated
 * phones attached to it over the adbd protocol, and a bridge pointed at that server.
 * `stop()` tears everything down in reverse order.
 */
import { startAdbServer, type AdbServerRig } from './adb-server';
import { startBridge, type TestBridge } from './bridge';
import { startSimFarm, type SimFarm } from '../../main/sim/sim-farm';
import { createSimulatedPhone, type SimulatedPhone, type SimulatedPhoneOptions } from '../../main/sim/phone';
import type { CoreOptionsInput } from '../../main/core/config/core-options';
import type { DeviceRecord } from '../../main/core/devices/device-registry';
import { XAgentClient } from './xagent-client';

export interface DeviceRig {
  adb: AdbServerRig;
  farm: SimFarm;
  bridge: TestBridge;
  phones: SimulatedPhone[];
  /** The bridge's record of phone i once it is ready (facts read). */
  device(i: number): DeviceRecord;
  stop(): Promise<void>;
}

export async function waitUntil(check: () => boolean, timeoutMs = 15_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export async function startDeviceRig(
  count: number,
  bridgeOptions: Partial<CoreOptionsInput> = {},
  phoneOptions: { withAdbKeyboard?: boolean; profile?: 'instant' | 'usb-phone' } & Pick<
    SimulatedPhoneOptions,
    'sdk' | 'androidVersion' | 'quirks' | 'clock' | 'virtualTime'
  > & {
      /** Phone i's own options over the shared ones (an Android release per phone, say). */
      perPhone?: (i: number) => Partial<Pick<SimulatedPhoneOptions, 'sdk' | 'androidVersion' | 'quirks'>>;
    } = {},
): Promise<DeviceRig> {
  const adb = await startAdbServer();
  const phones: SimulatedPhone[] = [];
  let farm: SimFarm | undefined;
  let bridge: TestBridge | undefined;
  try {
    farm = await startSimFarm({
      count,
      adb: { host: '127.0.0.1', port: adb.port },
      createPhone: (i) => {
        const phone = createSimulatedPhone({
          serial: `SIMTEST${i}A${(0x4f2a + i).toString(16).toUpperCase()}`,
          model: i % 2 === 0 ? 'Pixel 7' : 'Galaxy S23',
          withAdbKeyboard: phoneOptions.withAdbKeyboard ?? true,
          profile: phoneOptions.profile ?? 'instant',
          ...(phoneOptions.sdk !== undefined ? { sdk: phoneOptions.sdk } : {}),
          ...(phoneOptions.androidVersion !== undefined ? { androidVersion: phoneOptions.androidVersion } : {}),
          ...(phoneOptions.quirks !== undefined ? { quirks: phoneOptions.quirks } : {}),
          ...(phoneOptions.clock !== undefined ? { clock: phoneOptions.clock } : {}),
          ...(phoneOptions.virtualTime !== undefined ? { virtualTime: phoneOptions.virtualTime } : {}),
          ...phoneOptions.perPhone?.(i),
        });
        phones[i] = phone;
        return phone;
      },
    });
    bridge = await startBridge({ adbServers: [{ host: '127.0.0.1', port: adb.port }], ...bridgeOptions });
    const b = bridge;
    const f = farm;
    const ready = (i: number): DeviceRecord | undefined => {
      const serial = f.phones[i]?.serial ?? '';
      const record = b.core.registry.list().find((d) => d.serial === serial);
      return record && record.state === 'device' && record.model !== null ? record : undefined;
    };
    await waitUntil(() => f.phones.every((_p, i) => ready(i) !== undefined), 20_000, 'phones ready in the bridge');
    // The phone check a ready phone gets in the background (docs/REFERENCE.md "Phone check") is over
    // before a test starts, so its reads are in no test's argv log and take no faults.
    const checked = (i: number): boolean => {
      const id = ready(i)?.deviceId;
      const check = b.core.adminState().devices.find((d) => d.device_id === id)?.check;
      return check !== null && check !== undefined && !check.running;
    };
    await waitUntil(() => f.phones.every((_p, i) => checked(i)), 20_000, 'first phone check of every phone');
    return {
      adb,
      farm,
      bridge,
      phones,
      device: (i) => {
        const record = b.core.registry.list().find((d) => d.serial === f.phones[i]?.serial);
        if (!record) throw new Error(`phone ${i} unknown to the bridge`);
        return record;
      },
      async stop() {
        await b.stop();
        await f.stop();
        await adb.stop();
      },
    };
  } catch (error) {
    await bridge?.stop();
    await farm?.stop();
    await adb.stop();
    throw error;
  }
}

/** Opens a channel and binds it to a phone through the desktop_approval flow, approved by the admin API. */
export async function bindChannel(rig: DeviceRig, client: XAgentClient, deviceId: string): Promise<string> {
  const opened = await client.openChannel('');
  const channelId = String(opened.payload?.connector_channel_id);
  const started = await client.request('auth.start', { flow_id: 'desktop_approval' }, channelId);
  const sessionId = String(started.payload?.auth_session_id);
  const res = await rig.bridge.admin('POST', `/admin/api/pairings/${sessionId}`, {
    action: 'approve',
    device_id: deviceId,
  });
  if (res.status !== 200) throw new Error(`approve failed: ${JSON.stringify(res.body)}`);
  const status = await client.request(
    'auth.status',
    { flow_id: 'desktop_approval', auth_session_id: sessionId },
    channelId,
  );
  if (status.payload?.status !== 'authenticated')
    throw new Error(`not authenticated: ${JSON.stringify(status.payload)}`);
  return channelId;
}

export interface BoundRig {
  rig: DeviceRig;
  /** Connected, hello done. */
  client: XAgentClient;
  /** Bound to phone 0. */
  channel: string;
  /** Closes the client, then the rig. */
  stop(): Promise<void>;
}

/** One phone, an xAgent client that said hello, and a channel bound to that phone: the setup most tool tests share. */
export async function startBoundRig(
  bridgeOptions: Partial<CoreOptionsInput> = {},
  phoneOptions: Parameters<typeof startDeviceRig>[2] = {},
): Promise<BoundRig> {
  const rig = await startDeviceRig(1, bridgeOptions, phoneOptions);
  let client: XAgentClient | undefined;
  try {
    client = await XAgentClient.connect(rig.bridge.url, rig.bridge.apiKey);
    await client.hello();
    const channel = await bindChannel(rig, client, rig.device(0).deviceId);
    const connected = client;
    return {
      rig,
      client: connected,
      channel,
      stop: async () => {
        await connected.close();
        await rig.stop();
      },
    };
  } catch (error) {
    await client?.close();
    await rig.stop();
    throw error;
  }
}

let callCounter = 0;
export function invoke(
  client: XAgentClient,
  channelId: string,
  toolId: string,
  args: Record<string, unknown> = {},
  toolCallId?: string,
) {
  callCounter += 1;
  return client.request(
    'tool.invoke',
    {
      tool_id: toolId,
      arguments: { connector_channel_id: channelId, ...args },
      context: {
        session_id: 'sess_test',
        tool_call_id: toolCallId ?? `call_${process.pid}_${callCounter}_${Date.now()}`,
      },
    },
    channelId,
    60_000,
  );
}
