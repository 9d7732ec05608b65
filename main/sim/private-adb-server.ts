/**
 * A private, real adb server (`adb -L tcp:PORT server nodaemon`) on a free port, owned by its
 * caller (its pid, its teardown), with a private HOME so no user's keys are involved. Used by
 * the demo, the bench and the tests. Never port 5037, never a server forked behind our back.
 *
 * adb 1.0.41 cannot pick a port itself, so we pick one the kernel reports free and hand it to
 * adb. Another process may take that port before adb binds it (any `listen(0)` on the machine
 * can be given it); adb then retries for 0.5 s, logs "could not install *smartsocket*
 * listener: Address already in use" and aborts. We start again on a new port, and count the
 * server ready only when the listener on the port belongs to OUR process: someone else's adb
 * on that port also answers `host:version`, and its teardown would then be ours.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostVersion } from './adb-host-client';
import { holdsListeningSocket } from './listening-socket-owner';

export interface AdbServerRig {
  host: '127.0.0.1';
  port: number;
  pid: number;
  /** Environment for running the adb CLI against this server. */
  env: NodeJS.ProcessEnv;
  /** What the server printed to stderr (last 64 KiB), and how it exited if it did, for failure messages. */
  log(): string;
  /** kill-server, then end our pid and wait for it. Idempotent. */
  stop(): Promise<void>;
  readonly stopped: boolean;
  /** False once stop() was called or the server process exited on its own. */
  readonly running: boolean;
}

export interface PrivateAdbServerOptions {
  /** Deadline for the whole start, all attempts included; default 15 s. */
  timeoutMs?: number;
  /**
   * A fixed port, only to bring a killed server back where the clients expect it. If it is
   * taken the start fails (port_taken) instead of moving elsewhere.
   */
  port?: number;
  /** Chooses the port of each attempt; default: one the kernel reports free. Tests inject a taken one. */
  pickPort?: () => Promise<number>;
  /** Ports tried before giving up when adb finds each one taken; default 5. */
  maxAttempts?: number;
}

export type PrivateAdbServerErrorCode = 'invalid_options' | 'spawn_failed' | 'port_taken' | 'exited' | 'no_answer';

export class PrivateAdbServerError extends Error {
  override readonly name = 'PrivateAdbServerError';
  constructor(
    readonly code: PrivateAdbServerErrorCode,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export const ADB = 'adb';

/** What adb 1.0.41 (and later) logs before aborting when it cannot listen on its port. */
const LISTEN_FAILED = /could not install \*smartsocket\* listener: ?(.*)/;

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

function checkOptions(options: PrivateAdbServerOptions): void {
  const fail = (message: string): never => {
    throw new PrivateAdbServerError('invalid_options', `startPrivateAdbServer: ${message}`);
  };
  if (!options || typeof options !== 'object') fail('options must be an object');
  const { timeoutMs, port, pickPort, maxAttempts } = options;
  if (timeoutMs !== undefined && !(Number.isFinite(timeoutMs) && timeoutMs > 0))
    fail(`timeoutMs must be a positive number, got ${String(timeoutMs)}`);
  if (port !== undefined && !(Number.isInteger(port) && port >= 1 && port <= 65535))
    fail(`port must be an integer 1-65535, got ${String(port)}`);
  if (pickPort !== undefined && typeof pickPort !== 'function') fail('pickPort must be a function');
  if (port !== undefined && pickPort !== undefined) fail('give either port or pickPort, not both');
  if (maxAttempts !== undefined && !(Number.isInteger(maxAttempts) && maxAttempts >= 1))
    fail(`maxAttempts must be a positive integer, got ${String(maxAttempts)}`);
}

/**
 * Starts a private adb server and resolves once it answers `host:version` on a port it
 * listens on itself. Rejects with a PrivateAdbServerError (code) otherwise.
 */
export async function startPrivateAdbServer(options: PrivateAdbServerOptions = {}): Promise<AdbServerRig> {
  checkOptions(options);
  const deadline = Date.now() + (options.timeoutMs ?? 15_000);
  const maxAttempts = options.port !== undefined ? 1 : (options.maxAttempts ?? 5);
  const pickPort = options.pickPort ?? freePort;
  const taken: string[] = [];
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const port = options.port ?? (await pickPort());
    const result = await launch(port, deadline);
    if (result.kind === 'ready') return result.rig;
    taken.push(`${port} (${result.reason})`);
    if (Date.now() >= deadline) break;
  }
  throw new PrivateAdbServerError(
    'port_taken',
    options.port !== undefined
      ? `adb could not listen on port ${taken.join(', ')}: another process holds it`
      : `adb could not listen on any of ${taken.length} port(s): another process took the port before adb bound it: ${taken.join(', ')}`,
  );
}

type Launch = { kind: 'ready'; rig: AdbServerRig } | { kind: 'port_taken'; reason: string };

/** One attempt on one port: ready, the port was taken (try another), or a thrown error. */
async function launch(port: number, deadline: number): Promise<Launch> {
  // A private home: adb writes its key pair there, and no user's keys leak into tests.
  const home = mkdtempSync(join(tmpdir(), 'adb-rig-'));
  const serverEnv = cleanAdbEnv({ HOME: home, ANDROID_SDK_HOME: home, ANDROID_USER_HOME: join(home, '.android') });
  const child = spawn(ADB, ['-L', `tcp:${port}`, 'server', 'nodaemon'], {
    env: serverEnv,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  const append = (text: string): void => {
    log = (log + text).slice(-65536);
  };
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', append);
  let exited = false;
  let spawnError: Error | undefined;
  child.once('exit', () => {
    exited = true;
  });
  // 'close' comes after the last of stderr, so the log is complete and the exit line is last.
  const closed = new Promise<void>((resolve) => {
    child.once('close', (code, signal) => {
      append(`[adb server exited: ${signal ? `signal ${signal}` : `code ${String(code)}`}]\n`);
      resolve();
    });
  });
  child.once('error', (error) => {
    spawnError = error;
    exited = true;
  });

  let stopped = false;
  let stopping: Promise<void> | undefined;
  const address = { host: '127.0.0.1', port };
  const cliEnv = cleanAdbEnv({ ANDROID_ADB_SERVER_PORT: String(port), HOME: home, ANDROID_SDK_HOME: home });

  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      stopped = true;
      // Only a server that still runs owns the port: otherwise kill-server could end someone else's.
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

  try {
    // Wait until the server accepts and answers; the process may need a moment to bind.
    let lastError: unknown;
    for (let attempt = 0; ; attempt++) {
      if (spawnError)
        throw new PrivateAdbServerError('spawn_failed', `could not run ${ADB}: ${spawnError.message}`, {
          cause: spawnError,
        });
      if (exited) {
        await closed;
        const listenFailed = LISTEN_FAILED.exec(log);
        if (listenFailed) {
          await stop();
          return { kind: 'port_taken', reason: listenFailed[1]?.trim() || 'listen failed' };
        }
        throw new PrivateAdbServerError('exited', `adb server on port ${port} exited during startup: ${log}`);
      }
      try {
        await hostVersion(address, { timeoutMs: Math.max(1, Math.min(2_000, deadline - Date.now())) });
        // Something answers; it is ours only if our process holds the listener. While another
        // process holds the port, ours is still retrying its bind and about to give up.
        const owner = await holdsListeningSocket(rig.pid, port);
        if (owner === true || (owner === undefined && !exited)) return { kind: 'ready', rig };
        lastError = new Error(`port ${port} answers, but the listener is not our adb server (pid ${rig.pid})`);
      } catch (error) {
        lastError = error;
      }
      if (Date.now() >= deadline) {
        throw new PrivateAdbServerError(
          'no_answer',
          `adb server on port ${port} did not answer: ${String(lastError)} ${log}`,
          {
            cause: lastError,
          },
        );
      }
      // Backoff between connection attempts to a process that is still starting (not a sync sleep).
      await new Promise<void>((resolve) => setTimeout(resolve, Math.min(20 * 2 ** attempt, 200)));
    }
  } catch (error) {
    await stop();
    throw error;
  }
}
