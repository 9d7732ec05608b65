/**
 * Rig for the resident-helper sim tests: one simulated phone behind the real adb server,
 * the real helper APKs installed with the real `adb install`, the instrumentation started
 * with `adb shell am instrument -w` (a child the rig owns and ends), a forward from a free
 * host port to the device's tcp:6790, and a keep-alive HTTP client for it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { Agent, request } from 'node:http';
import { SERVER_APK_PATH, TEST_APK_PATH } from 'appium-uiautomator2-server';
import { AdbdServer } from '../../main/sim/adbd-server';
import { ADB } from '../../main/sim/private-adb-server';
import { attachToAdb } from '../../main/sim/sim-farm';
import { createSimulatedPhone, type SimulatedPhone, type SimulatedPhoneOptions } from '../../main/sim/phone';
import { runAdb, startAdbServer, type AdbServerRig } from '../helpers/adb-server';

export const COMPONENT = 'io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner';
export { SERVER_APK_PATH, TEST_APK_PATH };

export interface HttpAnswer {
  status: number;
  json: { value: unknown; sessionId: string | null };
}

export interface Instrumentation {
  child: ChildProcess;
  /** Everything the `am instrument` stream printed so far. */
  output(): string;
  /** Resolves with the exit code and the whole output when the stream ends. */
  exited: Promise<{ code: number | null; output: string }>;
}

export interface HelperRig {
  rig: AdbServerRig;
  phone: SimulatedPhone;
  serial: string;
  adb(...args: string[]): Promise<{ stdout: string; stderr: string; code: number }>;
  /** `adb install` of both APKs (asserts Success). */
  installHelper(): Promise<void>;
  /** Starts `adb shell am instrument -w …` and waits for the test's stream line. */
  startInstrumentation(): Promise<Instrumentation>;
  /** `adb forward tcp:0 tcp:6790`: the host port. */
  forward(): Promise<number>;
  http(port: number, method: string, path: string, body?: unknown): Promise<HttpAnswer>;
  /** Waits until the server listens, then GET /status. */
  waitReady(port: number): Promise<HttpAnswer>;
  /** POST /session with empty capabilities: the session id. */
  newSession(port: number): Promise<string>;
  /** Ends children, sockets, the phone, its adbd and the adb server; idempotent. */
  close(): Promise<void>;
}

/** A rig; the caller closes it (an `after` hook). */
export async function startHelperRig(options: Partial<SimulatedPhoneOptions> = {}): Promise<HelperRig> {
  const rig = await startAdbServer();
  const phone = createSimulatedPhone({ serial: 'helper-sim', ...options });
  const server = await AdbdServer.start({ phone });
  const children = new Set<ChildProcess>();
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    for (const child of children) child.kill('SIGKILL');
    agent.destroy();
    phone.close();
    await server.close();
    await rig.stop();
  };
  const serial = await attachToAdb(rig, server.port);
  const adb = async (...args: string[]) => {
    const r = await runAdb(rig, ['-s', serial, ...args], { timeoutMs: 60_000 });
    return { stdout: r.stdout.toString('utf8'), stderr: r.stderr, code: r.code };
  };
  const http = (port: number, method: string, path: string, body?: unknown): Promise<HttpAnswer> =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body), 'utf8');
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method,
          path,
          agent,
          signal: AbortSignal.timeout(20_000),
          headers: payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {},
        },
        (res) => {
          const parts: Buffer[] = [];
          res.on('data', (c: Buffer) => parts.push(c));
          res.on('end', () => {
            try {
              resolve({
                status: res.statusCode ?? 0,
                json: JSON.parse(Buffer.concat(parts).toString('utf8')) as HttpAnswer['json'],
              });
            } catch (error) {
              reject(error instanceof Error ? error : new Error(String(error)));
            }
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  return {
    rig,
    phone,
    serial,
    adb,
    http,
    close,
    installHelper: async () => {
      for (const apk of [SERVER_APK_PATH, TEST_APK_PATH]) {
        const r = await adb('install', '-r', apk);
        if (r.code !== 0 || !r.stdout.includes('Success'))
          throw new Error(`adb install ${apk}: ${r.code} ${r.stdout} ${r.stderr}`);
      }
    },
    startInstrumentation: async () => {
      const child = spawn(
        ADB,
        [
          '-P',
          String(rig.port),
          '-s',
          serial,
          'shell',
          'am',
          'instrument',
          '-w',
          '-e',
          'disableAnalytics',
          'true',
          COMPONENT,
        ],
        { env: rig.env, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      children.add(child);
      let output = '';
      const changed = new EventTarget();
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (text: string) => {
        output += text;
        changed.dispatchEvent(new Event('data'));
      });
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (text: string) => {
        output += text;
        changed.dispatchEvent(new Event('data'));
      });
      const exited = once(child, 'close').then(([code]) => {
        children.delete(child);
        return { code: code as number | null, output };
      });
      const signal = AbortSignal.timeout(20_000);
      while (!output.includes('AppiumUiAutomator2Server:') && child.exitCode === null) {
        await Promise.race([once(changed, 'data', { signal }), exited]);
      }
      return { child, output: () => output, exited };
    },
    forward: async () => {
      const r = await adb('forward', 'tcp:0', 'tcp:6790');
      const port = Number(r.stdout.trim());
      if (r.code !== 0 || !Number.isInteger(port) || port <= 0)
        throw new Error(`adb forward: ${r.code} ${r.stdout} ${r.stderr}`);
      return port;
    },
    waitReady: async (port) => {
      // The server listens a moment after the stream line: wait for that, then ask.
      await phone.helper.waitForState('running', AbortSignal.timeout(30_000));
      return http(port, 'GET', '/status');
    },
    newSession: async (port) => {
      const r = await http(port, 'POST', '/session', {
        capabilities: { alwaysMatch: { platformName: 'Android' }, firstMatch: [{}] },
      });
      if (r.status !== 200 || typeof r.json.sessionId !== 'string')
        throw new Error(`POST /session: ${r.status} ${JSON.stringify(r.json)}`);
      return r.json.sessionId;
    },
  };
}

/** `<Class ... text="…" bounds="[l,t][r,b]">` elements of a page source, attributes unescaped. */
export function sourceNodes(xml: string): Array<Record<string, string>> {
  const nodes: Array<Record<string, string>> = [];
  for (const m of xml.matchAll(/<([A-Za-z][\w.]*) (index="[^>]*?)\s*\/?>/g)) {
    if (m[1] === 'hierarchy') continue;
    const attrs: Record<string, string> = { tag: m[1] ?? '' };
    for (const a of (m[2] ?? '').matchAll(/([\w-]+)="([^"]*)"/g)) {
      attrs[a[1] ?? ''] = (a[2] ?? '').replace(/&(#\d+|amp|lt|gt|quot);/g, (_, e: string) =>
        e.startsWith('#')
          ? String.fromCodePoint(Number(e.slice(1)))
          : ({ amp: '&', lt: '<', gt: '>', quot: '"' }[e] ?? ''),
      );
    }
    nodes.push(attrs);
  }
  return nodes;
}

export function centreOf(bounds: string): { x: number; y: number } {
  const m = /^\[(\d+),(\d+)\]\[(\d+),(\d+)\]$/.exec(bounds);
  if (!m) throw new Error(`bad bounds ${bounds}`);
  return { x: Math.round((Number(m[1]) + Number(m[3])) / 2), y: Math.round((Number(m[2]) + Number(m[4])) / 2) };
}

/** A W3C tap (pointerMove, pointerDown, pause, pointerUp) at (x, y). */
export function tapActions(x: number, y: number, holdMs = 60): unknown {
  return {
    actions: [
      {
        type: 'pointer',
        id: 'finger1',
        parameters: { pointerType: 'touch' },
        actions: [
          { type: 'pointerMove', duration: 0, x, y, origin: 'viewport' },
          { type: 'pointerDown', button: 0 },
          { type: 'pause', duration: holdMs },
          { type: 'pointerUp', button: 0 },
        ],
      },
    ],
  };
}
