/**
 * What the bench runs against: a private real adb server, simulated phones attached to it
 * over the adbd protocol, and the bridge — either in this process (createCore) or as its
 * own `device-bridge serve` process, so its memory can be read alone. Every piece is
 * registered with a Cleanup, which tears down in reverse order even after an error.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAdbServer, type AdbServerRig } from '../test/helpers/adb-server';
import { createCore, type Core } from '../main/core/create-core';
import type { CoreOptionsInput } from '../main/core/config/core-options';
import { silentLogger } from '../main/core/logging/logger';
import { startSimFarm, type SimFarm } from '../main/sim/sim-farm';
import { createSimulatedPhone, type SimulatedPhone } from '../main/sim/phone';
import type { TimingProfileName } from '../main/sim/timing-profiles';
import type { AdminDevice, AdminPhoneProgram } from '../main/contract/admin-api';
import { WireClient } from './wire-client';

const REPO_ROOT = join(__dirname, '..');

/** Teardown steps, run newest first; each runs once, failures are reported and do not stop the rest. */
export class Cleanup {
  private readonly steps: Array<{ what: string; run: () => Promise<void> | void }> = [];
  private running: Promise<void> | undefined;

  add(what: string, run: () => Promise<void> | void): void {
    this.steps.push({ what, run });
  }

  /** Runs a step now and forgets it (for pieces stopped between bench parts). */
  async runNow(what: string): Promise<void> {
    const index = this.steps.findIndex((s) => s.what === what);
    if (index < 0) return;
    const [step] = this.steps.splice(index, 1);
    await step?.run();
  }

  runAll(): Promise<void> {
    this.running ??= (async () => {
      while (this.steps.length > 0) {
        const step = this.steps.pop();
        if (!step) break;
        try {
          await withTimeout(Promise.resolve(step.run()), 20_000, `cleanup: ${step.what}`);
        } catch (error) {
          process.stderr.write(
            `cleanup of ${step.what} failed: ${error instanceof Error ? error.message : String(error)}\n`,
          );
        }
      }
    })();
    return this.running;
  }
}

export function withTimeout<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took more than ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function startAdb(cleanup: Cleanup): Promise<AdbServerRig> {
  const adb = await startAdbServer();
  cleanup.add('adb server', () => adb.stop());
  return adb;
}

export interface PhoneSet {
  farm: SimFarm;
  phones: SimulatedPhone[];
  /** adb's serial of phone i (127.0.0.1:PORT). */
  serial(i: number): string;
}

/** An Android release for the simulated phones (default: the simulator's, Android 14 / SDK 34). */
export interface PhoneRelease {
  sdk: number;
  androidVersion: string;
}

/** Starts simulated phones with the given timing profiles and attaches them to adb. */
export async function startPhones(
  cleanup: Cleanup,
  adb: AdbServerRig,
  profiles: TimingProfileName[],
  tag: string,
  release?: PhoneRelease,
): Promise<PhoneSet> {
  const phones: SimulatedPhone[] = [];
  const farm = await startSimFarm({
    count: profiles.length,
    adb: { host: '127.0.0.1', port: adb.port },
    timeoutMs: 60_000,
    createPhone: (i) => {
      const phone = createSimulatedPhone({
        serial: `BENCH${tag}${String(i).padStart(2, '0')}`,
        model: 'Pixel 7',
        withAdbKeyboard: true,
        profile: profiles[i] ?? 'instant',
        ...release,
      });
      phones[i] = phone;
      return phone;
    },
  });
  cleanup.add(`phones ${tag}`, async () => {
    await farm.stop();
    for (const phone of phones) phone.close();
  });
  // Every phone starts in the Notes app, where the bench's idle tap lands on the toolbar.
  await Promise.all(
    phones.map(async (phone) => {
      const out = await phone.exec('monkey -p com.example.notes -c android.intent.category.LAUNCHER 1', {
        signal: AbortSignal.timeout(15_000),
      });
      if (out.exitCode !== 0) throw new Error(`could not open Notes on ${phone.serial}: ${out.stderr.toString()}`);
    }),
  );
  return {
    farm,
    phones,
    serial: (i) => {
      const entry = farm.phones[i];
      if (!entry) throw new Error(`no phone ${i}`);
      return entry.serial;
    },
  };
}

/** A running bridge, wherever it runs; spoken to only over its public HTTP and WebSocket. */
export interface BridgeHandle {
  url: string;
  apiKey: string;
  /** For the console's URL (`#token=`); never printed. */
  adminToken: string;
  /** The bridge's own process id when it runs in a child process. */
  pid: number | undefined;
  /** Where the child's bench/bridge-probe.mjs writes memory figures after a forced GC (SIGUSR2). */
  probeFile: string | undefined;
  core: Core | undefined;
  admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** GET of an admin path whose answer is bytes (a live frame), with its headers. */
  adminBytes(path: string): Promise<{ status: number; headers: Headers; body: Buffer }>;
}

function freshSecrets(): { apiKey: string; adminToken: string } {
  return { apiKey: randomBytes(24).toString('base64url'), adminToken: randomBytes(24).toString('base64url') };
}

/** GET of admin bytes (a live frame) with the admin token. */
export function adminBytes(url: string, adminToken: string): BridgeHandle['adminBytes'] {
  return async (path) => {
    const res = await fetch(`${url}${path}`, {
      headers: { Authorization: `Bearer ${adminToken}` },
      signal: AbortSignal.timeout(15_000),
    });
    return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
  };
}

function adminClient(url: string, adminToken: string): BridgeHandle['admin'] {
  return async (method, path, body) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${adminToken}`,
        ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as unknown) : {} };
  };
}

/** The bridge inside this process, on port 0 with a temporary data dir. */
export async function startInProcessBridge(
  cleanup: Cleanup,
  adb: AdbServerRig,
  options: Partial<CoreOptionsInput> = {},
): Promise<BridgeHandle> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-bridge-'));
  cleanup.add('bridge data dir', () => rmSync(dataDir, { recursive: true, force: true }));
  const { apiKey, adminToken } = freshSecrets();
  const core = createCore({
    dataDir,
    port: 0,
    apiKey,
    adminToken,
    adbServers: [{ host: '127.0.0.1', port: adb.port }],
    logger: silentLogger,
    lease: { maxDurationMs: null, idleTimeoutMs: null, disconnectGraceMs: 60_000 },
    ...options,
  });
  cleanup.add('in-process bridge', () => core.stop());
  const { url } = await core.start();
  return {
    url,
    apiKey,
    adminToken,
    pid: undefined,
    probeFile: undefined,
    core,
    admin: adminClient(url, adminToken),
    adminBytes: adminBytes(url, adminToken),
  };
}

let compiledOnce = false;

/**
 * Compiles main/ (`tsc -p tsconfig.build.json`, into dist/) once per bench run, for
 * `startSpawnedBridge({ built: true })`: the bridge as installed runs compiled JavaScript, and
 * under tsx every function it makes also gets a name at run time and the loader keeps its
 * sources (more memory, more work on each call's path), which are the bench's, not the product's.
 */
export function compileBridge(log: (line: string) => void): void {
  if (compiledOnce) return;
  log('compiling main/ (tsc -p tsconfig.build.json) to run the bridge as installed');
  const compiled = spawnSync(
    process.execPath,
    [join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(REPO_ROOT, 'tsconfig.build.json')],
    { cwd: REPO_ROOT, stdio: 'inherit', timeout: 600_000 },
  );
  if (compiled.status !== 0) throw new Error(`tsc -p tsconfig.build.json failed (${String(compiled.status)})`);
  compiledOnce = true;
}

/**
 * `device-bridge serve` in its own Node process (through tsx, as `npm run bench` runs
 * TypeScript), keys passed by environment and never printed. Its stdout is parsed for the
 * listening line only, because the CLI also prints the console URL with the admin token.
 */
export async function startSpawnedBridge(
  cleanup: Cleanup,
  adb: AdbServerRig,
  more: {
    /** The bridge's ADB hosts as `serve` arguments (default: `--adb 127.0.0.1:PORT` of `adb`). */
    adbArgs?: string[];
    /** Extra Node options for the bridge process (a heap snapshot signal, for one). */
    nodeArgs?: string[];
    /**
     * Run the compiled bridge (dist/main/cli.js, from `tsc -p tsconfig.build.json`) without
     * tsx, as an installed `device-bridge serve` runs: tsx's loader thread and its compiled
     * sources in memory are not the product's.
     */
    built?: boolean;
  } = {},
): Promise<BridgeHandle> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-bridge-proc-'));
  cleanup.add('spawned bridge data dir', () => rmSync(dataDir, { recursive: true, force: true }));
  const { apiKey, adminToken } = freshSecrets();
  const probeFile = join(dataDir, 'bench-memory.json');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DEVICE_BRIDGE_API_KEY: apiKey,
    DEVICE_BRIDGE_ADMIN_TOKEN: adminToken,
    BENCH_PROBE_FILE: probeFile,
  };
  delete env.ADB_SERVER_SOCKET;
  delete env.ANDROID_ADB_SERVER_PORT;
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '--expose-gc',
      ...(more.nodeArgs ?? []),
      '--import',
      join(REPO_ROOT, 'bench', 'bridge-probe.mjs'),
      ...(more.built
        ? [join(REPO_ROOT, 'dist', 'main', 'cli.js')]
        : ['--import', 'tsx', join(REPO_ROOT, 'main', 'cli.ts')]),
      'serve',
      '--port',
      '0',
      '--data-dir',
      dataDir,
      ...(more.adbArgs ?? ['--adb', `127.0.0.1:${adb.port}`]),
    ],
    { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  cleanup.add('spawned bridge', () => stopChild(child));
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (text: string) => {
    stderr = (stderr + text).slice(-4096);
  });
  const url = await withTimeout(
    new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout?.setEncoding('utf8');
      child.stdout?.on('data', (text: string) => {
        out = (out + text).slice(-4096);
        const match = /device-bridge listening on (http:\/\/[^\s]+)\n/.exec(out);
        if (match?.[1]) resolve(match[1]);
      });
      child.once('exit', (code) =>
        reject(new Error(`the bridge exited with ${String(code)} before listening: ${stderr}`)),
      );
      child.once('error', reject);
    }),
    60_000,
    'the bridge process to listen',
  );
  return {
    url,
    apiKey,
    adminToken,
    pid: child.pid,
    probeFile,
    core: undefined,
    admin: adminClient(url, adminToken),
    adminBytes: adminBytes(url, adminToken),
  };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  try {
    await withTimeout(exited, 10_000, 'the bridge process to exit');
  } catch {
    child.kill('SIGKILL');
    await withTimeout(exited, 5_000, 'the bridge process to die').catch(() => undefined);
  }
}

/** The bridge's view of its phones (admin API). */
export async function bridgeDevices(bridge: BridgeHandle): Promise<AdminDevice[]> {
  const res = await bridge.admin('GET', '/admin/api/state');
  if (res.status !== 200) throw new Error(`admin state: HTTP ${res.status}`);
  return (res.body as { devices: AdminDevice[] }).devices;
}

/** Waits until the bridge sees every serial ready (state device, facts read); returns their device ids in order. */
export async function waitForDevices(
  bridge: BridgeHandle,
  serials: readonly string[],
  timeoutMs = 60_000,
): Promise<string[]> {
  let ids: string[] = [];
  await waitUntil(
    async () => {
      const devices = await bridgeDevices(bridge);
      const found = serials.map((s) => devices.find((d) => d.serial === s && d.state === 'device' && d.model !== null));
      if (found.some((d) => d === undefined)) return false;
      ids = found.map((d) => d!.device_id);
      return true;
    },
    timeoutMs,
    `the bridge to see ${serials.length} phones ready`,
  );
  return ids;
}

export async function connectClient(cleanup: Cleanup, bridge: BridgeHandle, what: string): Promise<WireClient> {
  const client = await WireClient.connect(bridge.url, bridge.apiKey);
  cleanup.add(what, () => client.close());
  return client;
}

/** Opens a channel and binds it to a phone through desktop_approval, approved over the admin API. */
export async function bindChannel(bridge: BridgeHandle, client: WireClient, deviceId: string): Promise<string> {
  const opened = await client.request('channel.open', {}, '');
  const channelId = String(opened.payload?.connector_channel_id);
  const started = await client.request('auth.start', { flow_id: 'desktop_approval' }, channelId);
  const sessionId = String(started.payload?.auth_session_id);
  const res = await bridge.admin('POST', `/admin/api/pairings/${sessionId}`, {
    action: 'approve',
    device_id: deviceId,
  });
  if (res.status !== 200) throw new Error(`approve failed: HTTP ${res.status} ${JSON.stringify(res.body)}`);
  const status = await client.request(
    'auth.status',
    { flow_id: 'desktop_approval', auth_session_id: sessionId },
    channelId,
  );
  if (status.payload?.status !== 'authenticated')
    throw new Error(`not authenticated: ${JSON.stringify(status.payload)}`);
  return channelId;
}

let callCounter = 0;

/** One tool call; resolves with the ack's result or throws with the ack's error code. */
export async function callTool(
  client: WireClient,
  channelId: string,
  toolId: string,
  args: Record<string, unknown> = {},
): Promise<Record<string, any>> {
  callCounter += 1;
  const ack = await client.request(
    'tool.invoke',
    {
      tool_id: toolId,
      arguments: { connector_channel_id: channelId, ...args },
      context: { session_id: 'sess_bench', tool_call_id: `bench_${process.pid}_${callCounter}` },
    },
    channelId,
    30_000,
  );
  if (ack.type !== 'tool.invoke.ack') throw new Error(`unexpected reply ${ack.type}`);
  if (ack.error) throw new ToolCallError(ack.error.code, ack.error.message ?? '');
  return (ack.payload?.result ?? {}) as Record<string, any>;
}

export class ToolCallError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(`${code}: ${message}`);
  }
}

/** The risk classes whose checks read the screen before a control action (main/core/safety). */
const SCREEN_CLASSES = ['sensitive_app', 'password_field', 'sensitive_screen', 'secure_screen', 'unreadable_screen'];

/**
 * Turns the safety policy's screen checks off (every screen class `allow`, so no UI dump
 * before a tap) or back to the built-in defaults. False when this bridge has no policy API.
 */
export async function setScreenChecks(bridge: BridgeHandle, on: boolean): Promise<boolean> {
  const defaults = on ? {} : Object.fromEntries(SCREEN_CLASSES.map((c) => [c, 'allow']));
  const res = await bridge.admin('PUT', '/admin/api/policies', { defaults });
  if (res.status === 404) return false;
  if (res.status !== 200) throw new Error(`PUT /admin/api/policies: HTTP ${res.status} ${JSON.stringify(res.body)}`);
  return true;
}

/** The port-less programs (scrcpy-server, the snapshot helper) the bridge shows for one phone. */
export async function programsOf(bridge: BridgeHandle, deviceId: string): Promise<AdminPhoneProgram[]> {
  return (await bridgeDevices(bridge)).find((d) => d.device_id === deviceId)?.programs ?? [];
}

/** Turns the port-less programs on or off for one phone (the admin route the device card uses). */
export async function setPrograms(bridge: BridgeHandle, deviceId: string, action: 'enable' | 'disable'): Promise<void> {
  const res = await bridge.admin('POST', `/admin/api/devices/${deviceId}/programs`, { action });
  if (res.status !== 200) throw new Error(`programs ${action}: HTTP ${res.status} ${JSON.stringify(res.body)}`);
}

/**
 * Waits until both port-less programs of a leased phone are `ready` (they start in the background
 * at the lease's first call; calls made before take the stock lane). Throws with their states
 * and last errors when they are not ready in time, so a bench never times a lane that is not there.
 */
/** The port-less programs (phone-programs/): on by default, started at a lease's first call. */
const PORTLESS: ReadonlyArray<AdminPhoneProgram['program']> = ['scrcpy_input', 'ui_reader', 'snapshot_tree'];

export async function waitForProgramsReady(bridge: BridgeHandle, deviceId: string, timeoutMs = 120_000): Promise<void> {
  let last: AdminPhoneProgram[] = [];
  try {
    await waitUntil(
      async () => {
        last = (await programsOf(bridge, deviceId)).filter((p) => PORTLESS.includes(p.program));
        // A program this build does not carry (no UI reader jar) is `unavailable`, not waited for.
        return (
          last.some((p) => p.program === 'scrcpy_input') &&
          last.every((p) => p.state === 'ready' || (p.state === 'unavailable' && p.version === null))
        );
      },
      timeoutMs,
      `the port-less programs ready on ${deviceId}`,
    );
  } catch (error) {
    const states = last.map((p) => `${p.program} ${p.state}${p.last_error ? ` (${p.last_error})` : ''}`).join(', ');
    throw new Error(`${error instanceof Error ? error.message : String(error)}: ${states || 'none listed'}`, {
      cause: error,
    });
  }
}
