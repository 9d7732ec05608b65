/**
 * A lab across hosts for tests: several private adb servers, each with its own simulated
 * phones, and one bridge taking phones from all of them. Phone j on server i has the serial
 * `LAB{i}P{j}4F2A` (every phone's label ends alike, as lab phones' often do) and model
 * Pixel 7 or Galaxy S23. `stop()` tears everything down in reverse; `stopServer(i)` takes
 * one host away.
 */
import { startAdbServer, type AdbServerRig } from './adb-server';
import { startBridge, type TestBridge } from './bridge';
import { waitUntil } from './device-rig';
import { startSimFarm, type SimFarm } from '../../main/sim/sim-farm';
import { createSimulatedPhone } from '../../main/sim/phone';
import type { CoreOptionsInput } from '../../main/core/config/core-options';

export interface LabRig {
  servers: AdbServerRig[];
  farms: SimFarm[];
  bridge: TestBridge;
  /** "127.0.0.1:PORT" of server i: the host's address in the bridge. */
  address(i: number): string;
  /** Phones the bridge has ready (facts read). */
  ready(): number;
  /** Kills server i (its phones stay attached to nothing): the host goes away. */
  stopServer(i: number): Promise<void>;
  stop(): Promise<void>;
}

export function labSerial(server: number, phone: number): string {
  return `LAB${server}P${phone}4F2A`;
}

export async function startLabRig(options: {
  servers: number;
  phonesPerServer: number;
  bridge?: Partial<CoreOptionsInput>;
}): Promise<LabRig> {
  const servers: AdbServerRig[] = [];
  const farms: SimFarm[] = [];
  let bridge: TestBridge | undefined;
  const stopAll = async (): Promise<void> => {
    await bridge?.stop();
    for (const farm of farms.reverse()) await farm.stop();
    for (const server of servers.reverse()) await server.stop();
  };
  try {
    for (let i = 0; i < options.servers; i++) {
      const adb = await startAdbServer();
      servers.push(adb);
      farms.push(
        await startSimFarm({
          count: options.phonesPerServer,
          adb: { host: '127.0.0.1', port: adb.port },
          createPhone: (j) =>
            createSimulatedPhone({
              serial: labSerial(i, j),
              model: j % 2 === 0 ? 'Pixel 7' : 'Galaxy S23',
              withAdbKeyboard: false,
              profile: 'instant',
            }),
        }),
      );
    }
    bridge = await startBridge({
      adbServers: servers.map((s) => ({ host: '127.0.0.1', port: s.port })),
      ...options.bridge,
    });
    const b = bridge;
    const ready = (): number => b.core.registry.list().filter((d) => d.state === 'device' && d.model !== null).length;
    const total = options.servers * options.phonesPerServer;
    await waitUntil(() => ready() === total, 60_000, `${total} phones ready in the bridge`);
    return {
      servers,
      farms,
      bridge: b,
      address: (i) => `127.0.0.1:${servers[i]!.port}`,
      ready,
      // The host goes away with its phones still attached: what a lost rack looks like.
      stopServer: (i) => servers[i]!.stop(),
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
