/**
 * Shared pieces of the hardening battery: an adb server started on a given port (to bring a
 * killed one back where the bridge expects it), the bridge as a child process (to kill -9 it),
 * an admin client for that child, and small measuring helpers. Everything started here has a
 * stop that waits for the process to be gone.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { hostVersion } from '../../main/sim/adb-host-client';
import type { XAgentClient } from '../helpers/xagent-client';

export interface OwnedProcess {
  pid: number;
  child: ChildProcess;
  /** SIGKILL and wait for the exit (idempotent). */
  kill9(): Promise<void>;
}

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

export function waitForExit(child: ChildProcess, timeoutMs = 10_000): Promise<boolean> {
  if (exited(child)) return Promise.resolve(true);
  return new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

function owned(child: ChildProcess): OwnedProcess {
  return {
    pid: child.pid ?? -1,
    child,
    async kill9() {
      if (!exited(child)) child.kill('SIGKILL');
      await waitForExit(child);
    },
  };
}

/** Kills a process we started by pid (SIGKILL) and waits until it no longer exists. */
export async function killPid(pid: number, timeoutMs = 10_000): Promise<void> {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    return; // already gone
  }
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    if (Date.now() > deadline) throw new Error(`process ${pid} did not exit`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * A real adb server on a chosen port (after the first one on that port was killed), with a
 * private HOME. Resolves once it answers `host:version`.
 */
export async function startAdbServerOnPort(
  port: number,
  timeoutMs = 15_000,
): Promise<OwnedProcess & { stop(): Promise<void> }> {
  const home = mkdtempSync(join(tmpdir(), 'adb-hard-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    ANDROID_SDK_HOME: home,
    ANDROID_USER_HOME: join(home, '.android'),
  };
  delete env.ADB_SERVER_SOCKET;
  delete env.ANDROID_ADB_SERVER_PORT;
  delete env.ANDROID_SERIAL;
  const child = spawn('adb', ['-L', `tcp:${port}`, 'server', 'nodaemon'], { env, stdio: 'ignore' });
  child.once('error', () => undefined);
  const proc = owned(child);
  const stop = async (): Promise<void> => {
    await proc.kill9();
    rmSync(home, { recursive: true, force: true });
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exited(child)) {
      await stop();
      throw new Error(`adb server on port ${port} exited during startup`);
    }
    try {
      await hostVersion({ host: '127.0.0.1', port }, { timeoutMs: 1_000 });
      return { ...proc, stop };
    } catch (error) {
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`adb server on port ${port} did not answer`, { cause: error });
      }
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

export const CHILD_API_KEY = 'hardening-api-key-0123456789abcdef';
export const CHILD_ADMIN_TOKEN = 'hardening-admin-token-0123456789ab';

export interface ChildBridge extends OwnedProcess {
  url: string;
  /** stdout + stderr so far (for failure messages and the "no secret printed" check). */
  output(): string;
  admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }>;
}

/** `device-bridge serve` as a child process on port 0; resolves once it prints its URL. */
export async function startChildBridge(dataDir: string, adbPort: number, timeoutMs = 30_000): Promise<ChildBridge> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DEVICE_BRIDGE_API_KEY: CHILD_API_KEY,
    DEVICE_BRIDGE_ADMIN_TOKEN: CHILD_ADMIN_TOKEN,
  };
  // Stock commands only (`--no-phone-programs`): these tests count the phone's `input` commands
  // to prove a call ran once; the scrcpy lane's own never-twice rule is tested in phone-programs.test.ts.
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'main/cli.ts',
      'serve',
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--adb',
      `127.0.0.1:${adbPort}`,
      '--no-phone-programs',
    ],
    {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const proc = owned(child);
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`bridge printed no listening line: ${out}`)), timeoutMs);
      const onData = (): void => {
        const match = /device-bridge listening on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(out);
        if (match?.[1]) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      };
      child.stdout?.on('data', onData);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`bridge exited ${String(code)}: ${out}`));
      });
    });
    return {
      ...proc,
      url,
      output: () => out,
      async admin(method, path, body) {
        const res = await fetch(`${url}${path}`, {
          method,
          headers: {
            Authorization: `Bearer ${CHILD_ADMIN_TOKEN}`,
            ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
          },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
          signal: AbortSignal.timeout(10_000),
        });
        const text = await res.text();
        return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
      },
    };
  } catch (error) {
    await proc.kill9();
    throw error;
  }
}

/** Opens a channel and binds it through desktop_approval, approved with an admin function. */
export async function bindWith(
  admin: ChildBridge['admin'],
  client: XAgentClient,
  deviceId: string,
  channelId = '',
): Promise<string> {
  const opened = await client.openChannel(channelId);
  const id = String(opened.payload?.connector_channel_id);
  const started = await client.request('auth.start', { flow_id: 'desktop_approval' }, id);
  const sessionId = String(started.payload?.auth_session_id);
  const res = await admin('POST', `/admin/api/pairings/${sessionId}`, { action: 'approve', device_id: deviceId });
  if (res.status !== 200) throw new Error(`approve failed: ${JSON.stringify(res.body)}`);
  const status = await client.request('auth.status', { flow_id: 'desktop_approval', auth_session_id: sessionId }, id);
  if (status.payload?.status !== 'authenticated')
    throw new Error(`not authenticated: ${JSON.stringify(status.payload)}`);
  return id;
}

/** A tool.invoke with an explicit tool_call_id (the retry tests need to choose it). */
export function invokeWith(
  client: XAgentClient,
  channelId: string,
  toolId: string,
  args: Record<string, unknown>,
  toolCallId: string,
  timeoutMs = 60_000,
) {
  return client.request(
    'tool.invoke',
    {
      tool_id: toolId,
      arguments: { connector_channel_id: channelId, ...args },
      context: { session_id: 'sess_hard', tool_call_id: toolCallId },
    },
    channelId,
    timeoutMs,
  );
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i] ?? 0;
}

let gcFn: (() => void) | undefined;

/**
 * A full garbage collection, so heap figures compare live data only. The test runner starts
 * files without --expose-gc, so turn the flag on at run time and take `gc` from a fresh context.
 */
export function forceGc(): void {
  if (!gcFn) {
    setFlagsFromString('--expose-gc');
    gcFn = runInNewContext('gc') as () => void;
  }
  gcFn();
}

/** Heap in use after full collections (and a few turns of the event loop to let closers run). */
export async function settleHeap(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    forceGc();
    await new Promise((r) => setTimeout(r, 20));
  }
  return process.memoryUsage().heapUsed;
}

export const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/**
 * Brings the simulated "Long list" app to the front of a bound phone. The fault and load
 * tests tap at arbitrary points; on the home screen such a tap may land on the Wallet or Store
 * icon, which the safety policy rightly holds for approval. Inside the list every tap is a
 * harmless one, so these tests measure what they are about.
 */
export async function openHarmlessApp(client: XAgentClient, channelId: string): Promise<void> {
  const ack = await invokeWith(
    client,
    channelId,
    'android_launch_app',
    { package: 'com.example.list' },
    `call_open_list_${channelId}_${Date.now()}`,
  );
  if (ack.error) throw new Error(`could not open the list app: ${JSON.stringify(ack.error)}`);
}
