/**
 * A private, real adb server (`adb -L tcp:PORT server nodaemon`) on a free port, owned by its
 * caller (its pid, its teardown), with a private HOME so no user's keys are involved. Used by
 * the demo, the bench and the tests. Never port 5037, never a server forked behind our back.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostVersion } from './adb-host-client';

export interface AdbServerRig {
  host: '127.0.0.1';
  port: number;
  pid: number;
  /** Environment for running the adb CLI against this server. */
  env: NodeJS.ProcessEnv;
  /** What the server printed to stderr (last 64 KiB), for failure messages. */
  log(): string;
  /** kill-server, then end our pid and wait for it. Idempotent. */
  stop(): Promise<void>;
  readonly stopped: boolean;
  /** False once stop() was called or the server process exited on its own. */
  readonly running: boolean;
}

export const ADB = 'adb';

/** Binds port 0, reads the port the kernel chose, releases it. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, () => resolve());
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address !== 'object') throw new Error('could not read a free port');
  return address.port;
}

/** The parent's environment without anything that would point adb somewhere else. */
export function cleanAdbEnv(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.ADB_SERVER_SOCKET;
  delete env.ANDROID_ADB_SERVER_PORT;
  delete env.ANDROID_SERIAL;
  delete env.ADB_VENDOR_KEYS;
  return { ...env, ...extra };
}

function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** Starts a private adb server and resolves once it answers `host:version`. */
export async function startPrivateAdbServer(options: { timeoutMs?: number; port?: number } = {}): Promise<AdbServerRig> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  // A fixed port only to bring a killed server back where the clients expect it.
  const port = options.port ?? (await freePort());
  // A private home: adb writes its key pair there, and no user's keys leak into tests.
  const home = mkdtempSync(join(tmpdir(), 'adb-rig-'));
  const serverEnv = cleanAdbEnv({ HOME: home, ANDROID_SDK_HOME: home, ANDROID_USER_HOME: join(home, '.android') });
  const child = spawn(ADB, ['-L', `tcp:${port}`, 'server', 'nodaemon'], {
    env: serverEnv,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (text: string) => {
    log = (log + text).slice(-65536);
  });
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  const spawnError = new Promise<never>((_resolve, reject) => {
    child.once('error', reject);
  });
  spawnError.catch(() => undefined);

  let stopped = false;
  let stopping: Promise<void> | undefined;
  const address = { host: '127.0.0.1', port };
  const cliEnv = cleanAdbEnv({ ANDROID_ADB_SERVER_PORT: String(port), HOME: home, ANDROID_SDK_HOME: home });

  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      stopped = true;
      if (!exited) {
        // kill-server never starts a server, so it is safe even if ours just died.
        const killer = spawn(ADB, ['-P', String(port), 'kill-server'], { env: cliEnv, stdio: 'ignore' });
        killer.once('error', () => undefined);
        if (!(await waitForExit(killer, 5_000))) killer.kill('SIGKILL');
        if (!(await waitForExit(child, 5_000))) {
          child.kill('SIGKILL');
          await waitForExit(child, 5_000);
        }
      }
      rmSync(home, { recursive: true, force: true });
    })();
    return stopping;
  };

  const rig: AdbServerRig = {
    host: '127.0.0.1',
    port,
    pid: child.pid ?? -1,
    env: cliEnv,
    log: () => log,
    stop,
    get stopped() {
      return stopped;
    },
    get running() {
      return !stopped && !exited;
    },
  };

  // Wait until the server accepts and answers; the process may need a moment to bind.
  const deadline = Date.now() + timeoutMs;
  try {
    for (let attempt = 0; ; attempt++) {
      if (exited) throw new Error(`adb server exited during startup: ${log}`);
      try {
        await Promise.race([hostVersion(address, { timeoutMs: 2_000 }), spawnError]);
        return rig;
      } catch (error) {
        if (Date.now() > deadline) {
          throw new Error(`adb server on port ${port} did not answer: ${String(error)} ${log}`, { cause: error });
        }
      }
      // Backoff between connection attempts to a process that is still starting (not a sync sleep).
      await new Promise<void>((resolve) => setTimeout(resolve, Math.min(20 * 2 ** attempt, 200)));
    }
  } catch (error) {
    await stop();
    throw error;
  }
}

