/**
 * What the admin state costs with a lab's worth of phones (#39, part j's state goal), measured
 * apart from the rest of the bench so that before and after can be taken in the same minutes on
 * a shared machine: `node --import tsx bench/state-cost.ts [--hosts 8] [--per-host 32] [--builds 200]`.
 *
 * - In this process (createCore): the registry's work while the phones come online (each
 *   arrival and each phone's facts, with the announcements they cause), then the CPU of one
 *   state build (`adminState()`) and of its JSON, in a synchronous loop, so the process's CPU
 *   time is the build's.
 * - `--spawned` (`--cpu-prof DIR` to profile it): also a compiled `device-bridge serve` (dist/main/cli.js, built first with
 *   `tsc -p tsconfig.build.json`) answering 100 sequential `GET /admin/api/state`: p50/p95 and
 *   the bridge process's CPU per request from /proc.
 */
import { performance } from 'node:perf_hooks';
import { loadavg } from 'node:os';
import { Cleanup, compileBridge, startAdb, startInProcessBridge, startSpawnedBridge, waitUntil } from './env';
import { readCpuSeconds } from './memory';
import { summarize } from './stats';
import { startSimFarm } from '../main/sim/sim-farm';
import { createSimulatedPhone, type SimulatedPhone } from '../main/sim/phone';
import type { AdbServerRig } from '../test/helpers/adb-server';
import type { DeviceRegistry } from '../main/core/devices/device-registry';
import { AdminStateEncoder } from '../main/core/admin/admin-state-encoder';

function argValue(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  const value = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} takes a positive whole number`);
  return value;
}

const HOSTS = argValue('--hosts', 8);
const PER_HOST = argValue('--per-host', 32);
const BUILDS = argValue('--builds', 200);
const SPAWNED = process.argv.includes('--spawned');
/** `--cpu-prof DIR`: the spawned bridge writes a V8 CPU profile there when it exits. */
const PROFILE_DIR = process.argv.includes('--cpu-prof')
  ? process.argv[process.argv.indexOf('--cpu-prof') + 1]
  : undefined;

/** Like part j's phones: each phone's own serial differs from the others' only before its last four. */
async function startHost(cleanup: Cleanup, host: number): Promise<AdbServerRig> {
  const adb = await startAdb(cleanup);
  const phones: SimulatedPhone[] = [];
  const farm = await startSimFarm({
    count: PER_HOST,
    adb: { host: '127.0.0.1', port: adb.port },
    timeoutMs: 120_000,
    createPhone: (j) => {
      const phone = createSimulatedPhone({
        serial: `LS${host}P${String(j).padStart(2, '0')}X4F2A`,
        model: j % 2 === 0 ? 'Pixel 7' : 'Galaxy S23',
        withAdbKeyboard: false,
        profile: 'instant',
      });
      phones[j] = phone;
      return phone;
    },
  });
  cleanup.add(`host ${host} phones`, async () => {
    await farm.stop();
    for (const phone of phones) phone.close();
  });
  return adb;
}

/** CPU milliseconds this process spent (user + system) while `run` ran synchronously. */
function cpuMs(run: () => void): number {
  const before = process.cpuUsage();
  run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

/** Counts and times the registry's two writers while the phones come online (relabelling included). */
function watchRegistry(registry: DeviceRegistry): { calls: number; ms: number; announced: number } {
  const seen = { calls: 0, ms: 0, announced: 0 };
  registry.on('changed', () => {
    seen.announced++;
  });
  for (const name of ['upsertState', 'setFacts'] as const) {
    const original = registry[name].bind(registry) as (...args: unknown[]) => unknown;
    (registry as unknown as Record<string, unknown>)[name] = (...args: unknown[]): unknown => {
      const t0 = performance.now();
      try {
        return original(...args);
      } finally {
        seen.ms += performance.now() - t0;
        seen.calls++;
      }
    };
  }
  return seen;
}

async function main(): Promise<void> {
  const cleanup = new Cleanup();
  process.on('SIGINT', () => void cleanup.runAll().then(() => process.exit(130)));
  try {
    const total = HOSTS * PER_HOST;
    const load0 = loadavg()[0]!;
    const hosts: AdbServerRig[] = [];
    for (let i = 0; i < HOSTS; i++) hosts.push(await startHost(cleanup, i));
    const bridge = await startInProcessBridge(cleanup, hosts[0]!, {
      adbServers: hosts.map((h) => ({ host: '127.0.0.1', port: h.port })),
    });
    const core = bridge.core!;
    const seen = watchRegistry(core.registry);
    const t0 = performance.now();
    await waitUntil(
      () => core.registry.list().filter((d) => d.state === 'device' && d.model !== null).length >= total,
      180_000,
      `${total} phones online`,
    );
    const onlineMs = performance.now() - t0;
    const labels = core.adminState().devices.map((d) => d.display_name);
    console.log(
      `online: ${total} phones in ${onlineMs.toFixed(0)} ms; registry writes ${seen.calls} taking ${seen.ms.toFixed(1)} ms ` +
        `(listeners included), ${seen.announced} announcements; labels unique: ${new Set(labels).size === labels.length}`,
    );

    // Warm up, then the build alone and the build with its JSON, each in a synchronous loop.
    for (let i = 0; i < 20; i++) JSON.stringify(core.adminState());
    let bytes = 0;
    const build = cpuMs(() => {
      for (let i = 0; i < BUILDS; i++) core.adminState();
    });
    const withJson = cpuMs(() => {
      for (let i = 0; i < BUILDS; i++) bytes = Buffer.byteLength(JSON.stringify(core.adminState()));
    });
    const encoder = new AdminStateEncoder();
    const encoded = cpuMs(() => {
      for (let i = 0; i < BUILDS; i++) encoder.encode(core.adminState());
    });
    const text = JSON.stringify(core.adminState());
    const encode = cpuMs(() => {
      for (let i = 0; i < BUILDS; i++) Buffer.from(text, 'utf8');
    });
    console.log(
      `state build (in process, ${BUILDS}×): ${(build / BUILDS).toFixed(2)} ms CPU; with JSON.stringify ${(withJson / BUILDS).toFixed(2)} ms; ` +
        `its UTF-8 encoding ${(encode / BUILDS).toFixed(2)} ms; build and encode with the entries' bytes reused ${(encoded / BUILDS).toFixed(2)} ms; ` +
        `${(bytes / 1024).toFixed(1)} KiB; load average ${load0.toFixed(1)} → ${loadavg()[0]!.toFixed(1)}`,
    );

    if (SPAWNED) {
      compileBridge((line) => console.log(line));
      await cleanup.runNow('in-process bridge');
      const served = await startSpawnedBridge(cleanup, hosts[0]!, {
        adbArgs: hosts.flatMap((h) => ['--adb', `127.0.0.1:${h.port}`]),
        built: true,
        ...(PROFILE_DIR ? { nodeArgs: ['--cpu-prof', '--cpu-prof-dir', PROFILE_DIR] } : {}),
      });
      await waitUntil(
        async () => {
          const res = await served.admin('GET', '/admin/api/state');
          const devices = (res.body as { devices?: Array<{ state: string; model: string | null }> }).devices ?? [];
          return devices.filter((d) => d.state === 'device' && d.model !== null).length >= total;
        },
        180_000,
        `${total} phones online in the spawned bridge`,
      );
      const timeGets = async (): Promise<string> => {
        const load = loadavg()[0]!;
        const times: number[] = [];
        const c0 = readCpuSeconds(served.pid!);
        for (let i = 0; i < 100; i++) {
          const start = performance.now();
          const res = await served.adminBytes('/admin/api/state');
          if (res.status !== 200) throw new Error(`admin state: HTTP ${res.status}`);
          times.push(performance.now() - start);
        }
        const cpu = ((readCpuSeconds(served.pid!) - c0) * 1000) / 100;
        const s = summarize(times);
        return `p50 ${s.p50.toFixed(1)} ms, p95 ${s.p95.toFixed(1)} ms, bridge CPU ${cpu.toFixed(1)} ms a GET, load ${load.toFixed(1)}`;
      };
      console.log(`spawned, right after all online: ${await timeGets()}`);
      console.log(`spawned, again: ${await timeGets()}`);
    }
  } finally {
    await cleanup.runAll();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
