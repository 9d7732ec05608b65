/**
 * `node --import tsx bench/phone-view-soak.ts [--minutes 60] [--interval-s 30]`: the phone view
 * left open with the agent's actions flowing (issue #18: "a view left open for an hour keeps
 * memory flat"). A private adb server, one simulated `usb-phone`, the bridge in its own process
 * (so its RSS is its own), Debian's Chromium on the web console's phone view, and an xAgent
 * client tapping, swiping and reading status about once a second. Every interval it samples
 * the page's JS heap after a collection (CDP HeapProfiler.collectGarbage, Performance.getMetrics:
 * JSHeapUsedSize, Nodes, JSEventListeners), the bridge's RSS and heap after a collection
 * (bench/bridge-probe.mjs), and the live screen's distinct frames; at the end it prints the
 * figures and the least-squares slope per hour after the first five minutes (the timeline ring fills first), and writes them to
 * bench/phone-view-results.md. Everything it starts is stopped at the end, on error and on Ctrl-C.
 *
 * With `--serve CONSOLE_DIR ADB_PORT DATA_DIR` it is instead the bridge process it spawns.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { createCore } from '../main/core/create-core';
import {
  Cleanup,
  adminBytes,
  bindChannel,
  callTool,
  connectClient,
  startAdb,
  startPhones,
  waitForDevices,
  withTimeout,
  type BridgeHandle,
} from './env';
import { readAfterGc } from './memory';

const ROOT = resolve(__dirname, '..');
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
/** The ring of 50 actions fills in the first minutes (about 20 calls a minute on usb-phone): growth until then is expected. */
const WARMUP_MS = 5 * 60_000;

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const value = Number(process.argv[i + 1]);
  if (!Number.isFinite(value) || value <= 0) {
    process.stderr.write(`--${name} needs a positive number\n`);
    process.exit(2);
  }
  return value;
}

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** The child role: a bridge serving the freshly built console. */
async function serve(consoleDir: string, adbPort: number, dataDir: string): Promise<void> {
  const core = createCore({
    dataDir,
    port: 0,
    apiKey: process.env.DEVICE_BRIDGE_API_KEY ?? '',
    adminToken: process.env.DEVICE_BRIDGE_ADMIN_TOKEN ?? '',
    adbServers: [{ host: '127.0.0.1', port: adbPort }],
    consoleDir,
  });
  const { url } = await core.start();
  process.stdout.write(`device-bridge listening on ${url}\n`);
  const stop = (): void => {
    void core.stop().then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

type SoakBridge = BridgeHandle & { pid: number; probeFile: string; adminToken: string };

async function spawnBridge(cleanup: Cleanup, consoleDir: string, adbPort: number): Promise<SoakBridge> {
  const dataDir = mkdtempSync(join(tmpdir(), 'phone-view-soak-'));
  cleanup.add('bridge data dir', () => rmSync(dataDir, { recursive: true, force: true }));
  const apiKey = randomBytes(24).toString('base64url');
  const adminToken = randomBytes(24).toString('base64url');
  const probeFile = join(dataDir, 'probe.json');
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
      '--import',
      'tsx',
      '--import',
      join(ROOT, 'bench', 'bridge-probe.mjs'),
      __filename,
      '--serve',
      consoleDir,
      String(adbPort),
      dataDir,
    ],
    { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  cleanup.add('bridge process', async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await withTimeout(exited, 10_000, 'the bridge to exit').catch(() => child.kill('SIGKILL'));
  });
  const url = await withTimeout(
    new Promise<string>((resolveUrl, reject) => {
      let out = '';
      child.stdout?.setEncoding('utf8');
      child.stdout?.on('data', (text: string) => {
        out += text;
        const match = /device-bridge listening on (\S+)\n/.exec(out);
        if (match?.[1]) resolveUrl(match[1]);
      });
      child.once('exit', (code) => reject(new Error(`the bridge exited with ${String(code)}`)));
    }),
    60_000,
    'the bridge to listen',
  );
  const admin: BridgeHandle['admin'] = async (method, path, body) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${adminToken}`,
        ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  };
  return {
    url,
    apiKey,
    pid: child.pid ?? 0,
    probeFile,
    core: undefined,
    admin,
    adminBytes: adminBytes(url, adminToken),
    adminToken,
  };
}

interface Sample {
  minute: number;
  pageHeapMiB: number;
  domNodes: number;
  listeners: number;
  bridgeRssMiB: number;
  bridgeHeapMiB: number;
  frames: number;
  actions: number;
}

/** Least-squares slope of y over x (minutes), as units per hour. */
function slopePerHour(points: Array<[number, number]>): number {
  const n = points.length;
  if (n < 2) return Number.NaN;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const sxy = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return sxx === 0 ? Number.NaN : (sxy / sxx) * 60;
}

async function soak(): Promise<void> {
  const minutes = flag('minutes', 60);
  const intervalMs = flag('interval-s', 30) * 1000;
  const cleanup = new Cleanup();
  const onSignal = (): void => {
    void cleanup.runAll().then(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const consoleDir = mkdtempSync(join(tmpdir(), 'phone-view-console-'));
    cleanup.add('console build', () => rmSync(consoleDir, { recursive: true, force: true }));
    const { buildRenderer } = (await import(pathToFileURL(join(ROOT, 'scripts', 'build-renderer.mjs')).href)) as {
      buildRenderer: (o: { outDir: string; minify?: boolean }) => Promise<unknown>;
    };
    await buildRenderer({ outDir: consoleDir, minify: true });
    const adb = await startAdb(cleanup);
    const phones = await startPhones(cleanup, adb, ['usb-phone'], 'PV');
    const bridge = await spawnBridge(cleanup, consoleDir, adb.port);
    const [deviceId = ''] = await waitForDevices(bridge, [phones.serial(0)]);
    const client = await connectClient(cleanup, bridge, 'xAgent client');
    const channel = await bindChannel(bridge, client, deviceId);

    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--headless', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
    });
    cleanup.add('browser', () => browser.close());
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    await page.goto(`${bridge.url}/console/#token=${bridge.adminToken}`);
    await page.getByTestId('live-status').waitFor({ timeout: 30_000 });
    await page.evaluate((id) => {
      window.location.hash = `#/devices/${encodeURIComponent(id)}`;
    }, deviceId);
    await page.getByTestId('phone-view-frame').waitFor({ timeout: 30_000 });
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');

    // The agent: about one call a second, pointing calls mostly (they carry pictures).
    let actions = 0;
    let failures = 0;
    let stopping = false;
    const agent = (async () => {
      const rnd = (lo: number, hi: number): number => Math.floor(lo + Math.random() * (hi - lo));
      while (!stopping) {
        const pick = actions % 4;
        try {
          if (pick === 0 || pick === 1)
            await callTool(client, channel, 'android_tap', { x: rnd(100, 980), y: rnd(400, 1800) });
          else if (pick === 2)
            await callTool(client, channel, 'android_swipe', {
              direction: actions % 8 === 2 ? 'up' : 'down',
              duration_ms: 150,
            });
          else await callTool(client, channel, 'android_device_status');
        } catch {
          failures += 1;
        }
        actions += 1;
        await new Promise((r) => setTimeout(r, 700));
      }
    })();
    cleanup.add('agent', async () => {
      stopping = true;
      await agent;
    });

    const started = Date.now();
    const samples: Sample[] = [];
    const sample = async (): Promise<void> => {
      await cdp.send('HeapProfiler.collectGarbage');
      const { metrics } = await cdp.send('Performance.getMetrics');
      const metric = (name: string): number => metrics.find((m) => m.name === name)?.value ?? Number.NaN;
      const bridgeMem = await readAfterGc(bridge.pid, bridge.probeFile);
      const frames = Number(
        await page
          .getByTestId('phone-view-frame')
          .getAttribute('data-shown')
          .catch(() => 'NaN'),
      );
      const s: Sample = {
        minute: (Date.now() - started) / 60_000,
        pageHeapMiB: metric('JSHeapUsedSize') / 2 ** 20,
        domNodes: metric('Nodes'),
        listeners: metric('JSEventListeners'),
        bridgeRssMiB: (bridgeMem?.rssKiB ?? Number.NaN) / 1024,
        bridgeHeapMiB: (bridgeMem?.heapUsedKiB ?? Number.NaN) / 1024,
        frames,
        actions,
      };
      samples.push(s);
      log(
        `${s.minute.toFixed(1).padStart(5)} min  page heap ${s.pageHeapMiB.toFixed(2)} MiB  nodes ${s.domNodes}  listeners ${s.listeners}  bridge rss ${s.bridgeRssMiB.toFixed(1)} MiB heap ${s.bridgeHeapMiB.toFixed(1)} MiB  frames ${s.frames}  actions ${s.actions} (${failures} failed)`,
      );
    };
    await sample();
    while (Date.now() - started < minutes * 60_000) {
      await new Promise((r) => setTimeout(r, Math.min(intervalMs, minutes * 60_000 - (Date.now() - started))));
      await sample();
    }
    stopping = true;
    await agent;

    const steady = samples.filter((s) => s.minute * 60_000 >= Math.min(WARMUP_MS, (minutes * 60_000) / 4));
    const slope = (pick: (s: Sample) => number): string =>
      slopePerHour(steady.map((s) => [s.minute, pick(s)])).toFixed(2);
    // RSS swings by tens of MiB between samples (native image buffers come and go): the medians
    // of the first and last third of the steady samples say more than a slope through the noise.
    const third = Math.max(1, Math.floor(steady.length / 3));
    const median = (values: number[]): number => {
      const sorted = [...values].sort((x, y) => x - y);
      return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
    };
    const thirds = (pick: (s: Sample) => number): string =>
      `${median(steady.slice(0, third).map(pick)).toFixed(1)} → ${median(steady.slice(-third).map(pick)).toFixed(1)}`;
    const last = samples[samples.length - 1];
    const first = steady[0];
    const fps =
      last && samples[0] ? (last.frames - samples[0].frames) / ((last.minute - samples[0].minute) * 60) : Number.NaN;
    const lines = [
      `# Phone view soak (${new Date().toISOString().slice(0, 16)}Z, ${minutes} min, one usb-phone simulated phone)`,
      '',
      `Actions: ${last?.actions ?? 0} (${failures} failed); live screen: ${fps.toFixed(2)} distinct frames a second over the run.`,
      `Slopes after ${(Math.min(WARMUP_MS, (minutes * 60_000) / 4) / 60_000).toFixed(1)} min (least squares, per hour): page JS heap ${slope((s) => s.pageHeapMiB)} MiB/h, DOM nodes ${slope((s) => s.domNodes)}/h, listeners ${slope((s) => s.listeners)}/h, bridge RSS ${slope((s) => s.bridgeRssMiB)} MiB/h, bridge heap ${slope((s) => s.bridgeHeapMiB)} MiB/h.`,
      first && last
        ? `Medians of the first and last third from ${first.minute.toFixed(1)} to ${last.minute.toFixed(1)} min: page heap ${thirds((s) => s.pageHeapMiB)} MiB, DOM nodes ${thirds((s) => s.domNodes)}, bridge RSS ${thirds((s) => s.bridgeRssMiB)} MiB, bridge heap ${thirds((s) => s.bridgeHeapMiB)} MiB.`
        : '',
      '',
      '| min | page heap MiB | DOM nodes | listeners | bridge RSS MiB | bridge heap MiB | frames | actions |',
      '| --- | --- | --- | --- | --- | --- | --- | --- |',
      ...samples.map(
        (s) =>
          `| ${s.minute.toFixed(1)} | ${s.pageHeapMiB.toFixed(2)} | ${s.domNodes} | ${s.listeners} | ${s.bridgeRssMiB.toFixed(1)} | ${s.bridgeHeapMiB.toFixed(1)} | ${s.frames} | ${s.actions} |`,
      ),
      '',
    ];
    writeFileSync(join(__dirname, 'phone-view-results.md'), lines.join('\n'));
    process.stdout.write(`${lines.slice(0, 5).join('\n')}\n`);
  } finally {
    await cleanup.runAll();
  }
}

if (process.argv[2] === '--serve') {
  void serve(process.argv[3] ?? '', Number(process.argv[4]), process.argv[5] ?? '');
} else {
  soak().then(
    () => process.exit(0),
    (error: unknown) => {
      log(`phone view soak failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      process.exit(1);
    },
  );
}
