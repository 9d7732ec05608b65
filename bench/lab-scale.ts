/**
 * Part j (#39): a lab at scale. 256 simulated phones on 8 private ADB servers, one of them
 * reached through a real OpenSSH server on loopback (test/helpers/sshd.ts; skipped with the
 * reason when sshd is absent), one `device-bridge serve` process taking them all. Measured:
 * time to all online, the admin state's p95, the bridge's RSS idle and under 64 agents, relayed
 * calls a second with 64 agents against 8 (and the bridge's CPU, which the machine's cores
 * bound), tap p95 on the other hosts' phones when one host is lost, and the console (Devices
 * listing all 256, a search, the page's JS heap) in Debian's Chromium.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { Cleanup } from './env';
import {
  bindChannel,
  bridgeDevices,
  compileBridge,
  connectClient,
  startAdb,
  startSpawnedBridge,
  waitUntil,
} from './env';
import { figures, runLoad, type LoadResult } from './load';
import { mib, readAfterGc, readCpuSeconds, readRss, RssSampler } from './memory';
import type { Report } from './report';
import { ms, now, summarize, table } from './stats';
import { startSimFarm } from '../main/sim/sim-farm';
import { createSimulatedPhone, type SimulatedPhone } from '../main/sim/phone';
import { sshdMissing, startSshd } from '../test/helpers/sshd';
import type { AdbServerRig } from '../test/helpers/adb-server';

const HOSTS = 8;
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const REPO_ROOT = join(__dirname, '..');

/** The phone's own serial (ro.serialno): unique, so a search for it finds one phone. */
function ownSerial(host: number, phone: number): string {
  return `LS${host}P${String(phone).padStart(2, '0')}X4F2A`;
}

export interface LabScaleFigures {
  phones: number;
  sshHost: boolean;
  onlineMs: number;
  stateP95: number;
  rssIdleMiB: number;
  rss64PeakMiB: number;
  rss64AfterGcMiB: number;
  calls8: number;
  calls64: number;
  cpu8: number;
  cpu64: number;
  tapP95Before: number;
  tapP95Lost: number;
  consoleListedMs: number | null;
  searchMs: number | null;
  heapMiB: number | null;
}

async function startHost(
  cleanup: Cleanup,
  host: number,
  perHost: number,
): Promise<{ adb: AdbServerRig; phones: SimulatedPhone[] }> {
  const adb = await startAdb(cleanup);
  const phones: SimulatedPhone[] = [];
  const farm = await startSimFarm({
    count: perHost,
    adb: { host: '127.0.0.1', port: adb.port },
    timeoutMs: 120_000,
    createPhone: (j) => {
      const phone = createSimulatedPhone({
        serial: ownSerial(host, j),
        model: j % 2 === 0 ? 'Pixel 7' : 'Galaxy S23',
        withAdbKeyboard: false,
        profile: 'instant',
      });
      phones[j] = phone;
      return phone;
    },
  });
  cleanup.add(`lab host ${host} phones`, async () => {
    await farm.stop();
    for (const phone of phones) phone.close();
  });
  return { adb, phones };
}

/** Ms until the list shows `expectRows` after typing `text` into the search box, measured in the page. */
function timedSearch(page: Page, text: string, expectRows: number): Promise<number> {
  return page.evaluate(
    async ({ text, expectRows }) => {
      const input = document.querySelector<HTMLInputElement>('[data-testid="devices-search"]');
      if (!input) throw new Error('no search box');
      const descriptor = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value');
      const started = performance.now();
      descriptor?.set?.call(input, text);
      input.dispatchEvent(new Event('input', { bubbles: true }));
      while (document.querySelectorAll('[data-testid^="device-row-dev_"]').length !== expectRows) {
        if (performance.now() - started > 5000) throw new Error(`search did not show ${expectRows} rows within 5 s`);
        await new Promise((r) => requestAnimationFrame(() => r(undefined)));
      }
      return performance.now() - started;
    },
    { text, expectRows },
  );
}

async function jsHeapMiB(page: Page): Promise<number> {
  const session = await page.context().newCDPSession(page);
  await session.send('HeapProfiler.collectGarbage');
  await session.send('Performance.enable');
  const { metrics } = await session.send('Performance.getMetrics');
  await session.detach();
  return (metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? Number.NaN) / 1048576;
}

function tapP95(result: LoadResult, include: (phone: number) => boolean): number {
  return summarize(
    result.calls.filter((c) => include(c.phone) && c.tool === 'android_tap' && c.error === undefined).map((c) => c.ms),
  ).p95;
}

export async function labScaleBench(
  report: Report,
  cleanup: Cleanup,
  quick: boolean,
  log: (line: string) => void,
): Promise<LabScaleFigures> {
  const perHost = quick ? 8 : 32;
  const total = perHost * HOSTS;
  report.section(`j. A lab at scale: ${total} phones on ${HOSTS} ADB hosts, one over SSH`);
  const loadMs = quick ? 5_000 : 15_000;
  const notes: string[] = [];

  log(`j. ${HOSTS} adb servers with ${perHost} simulated phones each`);
  const hosts: Array<{ adb: AdbServerRig; phones: SimulatedPhone[] }> = [];
  for (let i = 0; i < HOSTS; i++) hosts.push(await startHost(cleanup, i, perHost));

  const missing = sshdMissing();
  const lastAdb = hosts[HOSTS - 1]!.adb;
  let adbArgs = hosts.flatMap((h) => ['--adb', `127.0.0.1:${h.adb.port}`]);
  let loseHost: () => Promise<void> = () => lastAdb.stop();
  let lostAddress = `127.0.0.1:${lastAdb.port}`;
  if (missing) {
    notes.push(`Host 8 is reached directly, not over SSH: ${missing}.`);
    log(`j. sshd skipped: ${missing}`);
  } else {
    const sshd = await startSshd({ permitOpen: `127.0.0.1:${lastAdb.port}` });
    cleanup.add('lab sshd', () => sshd.stop());
    const knownHosts = join(sshd.dir, 'bench_known_hosts');
    const [type, blob] = sshd.hostKey.publicKey.split(' ');
    writeFileSync(knownHosts, `[127.0.0.1]:${sshd.port} ${type} ${blob}\n`);
    lostAddress = `ssh://${sshd.user}@127.0.0.1:${sshd.port}?adb_port=${lastAdb.port}`;
    adbArgs = [
      ...hosts.slice(0, HOSTS - 1).flatMap((h) => ['--adb', `127.0.0.1:${h.adb.port}`]),
      '--adb',
      lostAddress,
      '--ssh-key',
      sshd.userKey.privateKeyFile,
      '--ssh-known-hosts',
      knownHosts,
    ];
    // Losing the SSH host: sshd and its sessions killed, the way a rack's network goes.
    loseHost = () => sshd.kill();
  }

  // The console the bridge serves (dist/renderer, as `npm run build` makes it), built before it starts.
  const browserOk = existsSync(CHROMIUM);
  if (browserOk) {
    const url = pathToFileURL(join(REPO_ROOT, 'scripts', 'build-renderer.mjs')).href;
    const { buildRenderer } = (await import(url)) as {
      buildRenderer: (o: { minify?: boolean }) => Promise<unknown>;
    };
    await buildRenderer({ minify: true });
  } else notes.push(`The console was not measured: ${CHROMIUM} is not installed.`);

  // The bridge as installed runs compiled JavaScript; under tsx its idle RSS is 25-50 MiB more
  // (the loader's thread, the compiled sources it keeps), which is the bench's, not the product's.
  compileBridge((line) => log(`j. ${line}`));
  notes.push('The bridge ran compiled (dist/main/cli.js, no tsx), as an installed `device-bridge serve` runs.');

  log('j. starting device-bridge serve on all 8 hosts');
  const spawnedAt = now();
  const bridge = await startSpawnedBridge(cleanup, hosts[0]!.adb, { adbArgs, built: true });
  const listeningAt = now();
  const pid = bridge.pid!;
  let ids: string[] = [];
  await waitUntil(
    async () => {
      const devices = (await bridgeDevices(bridge)).filter((d) => d.state === 'device' && d.model !== null);
      if (devices.length < total) return false;
      ids = devices.map((d) => d.device_id);
      return true;
    },
    120_000,
    `all ${total} phones online`,
  );
  const onlineMs = now() - listeningAt;
  log(
    `j. ${total} phones online ${ms(onlineMs)} ms after the bridge listened (${ms(now() - spawnedAt)} ms after spawn)`,
  );

  const timeState = async (): Promise<ReturnType<typeof summarize>> => {
    const times: number[] = [];
    for (let i = 0; i < (quick ? 30 : 100); i++) {
      const t0 = now();
      const res = await bridge.admin('GET', '/admin/api/state');
      if (res.status !== 200) throw new Error(`admin state: HTTP ${res.status}`);
      times.push(now() - t0);
    }
    return summarize(times);
  };
  // Right after the last phone is online the bridge is still reading phones' facts and
  // relabelling them for a few seconds (20-40 % of a core here); timed then, and again once it
  // has settled (under 10 % of a core for a second, at most 20 s), which is the lab's usual day.
  const state = await timeState();
  const settleStarted = now();
  let settledMs: number | null = null;
  while (now() - settleStarted < 20_000) {
    const c0 = readCpuSeconds(pid);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    if (readCpuSeconds(pid) - c0 < 0.1) {
      settledMs = now() - settleStarted;
      break;
    }
  }
  const stateSettled = await timeState();
  const idle = await readAfterGc(pid, bridge.probeFile!);
  const rssIdle = readRss(pid)?.rssKiB ?? Number.NaN;

  // The console, idle: Devices listing every phone, a search for one serial, the page's heap.
  let browser: Browser | undefined;
  let page: Page | undefined;
  let consoleListedMs: number | null = null;
  let searchMs: number | null = null;
  let heapIdle: number | null = null;
  if (browserOk) {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--headless', '--disable-gpu', '--no-first-run', '--disable-sync'],
    });
    cleanup.add('lab browser', () => browser?.close());
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await page.goto(`${bridge.url}/console/#token=${bridge.adminToken}`);
    await page.getByTestId('nav-devices').waitFor({ timeout: 30_000 });
    const openedAt = now();
    await page.getByTestId('nav-devices').click();
    await page.waitForFunction(
      (n) => document.querySelectorAll('[data-testid^="device-row-dev_"]').length === n,
      total,
      { timeout: 30_000, polling: 'raf' },
    );
    consoleListedMs = now() - openedAt;
    const searches: number[] = [];
    for (const [h, p] of [
      [3, 17 % perHost],
      [6, 5],
      [0, 1],
    ] as const) {
      searches.push(await timedSearch(page, ownSerial(h, p), 1));
      await timedSearch(page, '', total);
    }
    searchMs = summarize(searches).p50;
    heapIdle = await jsHeapMiB(page);
    log(
      `j. console: ${total} listed in ${ms(consoleListedMs)} ms, search ${ms(searchMs)} ms, heap ${heapIdle.toFixed(1)} MiB`,
    );
  }

  log('j. binding 64 agents (8 per host)');
  const client = await connectClient(cleanup, bridge, 'lab-scale client');
  const devices = await bridgeDevices(bridge);
  const hostOf = new Map(devices.map((d) => [d.device_id, d.adb_server]));
  const addresses = [...new Set(devices.map((d) => d.adb_server))];
  const chosen: string[] = [];
  for (const address of addresses) chosen.push(...ids.filter((id) => hostOf.get(id) === address).slice(0, 8));
  const channels: string[] = [];
  for (const id of chosen) channels.push(await bindChannel(bridge, client, id));
  const target = { client, channels };
  const onHost = (phone: number): string => hostOf.get(chosen[phone] ?? '') ?? '';
  const all = chosen.map((_id, i) => i);
  const eight = addresses.map((address) => all.find((i) => onHost(i) === address)!).filter((i) => i !== undefined);

  const cpuOf = async (run: () => Promise<LoadResult>): Promise<{ result: LoadResult; cpu: number }> => {
    const c0 = readCpuSeconds(pid);
    const t0 = now();
    const result = await run();
    return { result, cpu: ((readCpuSeconds(pid) - c0) / ((now() - t0) / 1000)) * 100 };
  };
  log('j. 8 agents calling');
  await runLoad(target, eight, 1, 2_000);
  const run8 = await cpuOf(() => runLoad(target, eight, 1, loadMs));
  log('j. 64 agents calling');
  const sampler = new RssSampler(pid);
  const run64 = await cpuOf(() => runLoad(target, all, 1, loadMs));
  const rss64Peak = sampler.stop();
  let heapBusy: number | null = null;
  if (page) heapBusy = await jsHeapMiB(page);
  const after64 = await readAfterGc(pid, bridge.probeFile!);

  log(`j. one host lost (${lostAddress}): tap p95 on the other hosts' phones`);
  const others = all.filter((i) => onHost(i) !== lostAddress);
  const before = await runLoad(target, others, 1, loadMs);
  const lostAt = now();
  await loseHost();
  let offlineMs: number | null = null;
  const watchOffline = waitUntil(
    async () => {
      const list = await bridgeDevices(bridge);
      return list.filter((d) => d.adb_server === lostAddress).every((d) => d.state !== 'device');
    },
    15_000,
    'the lost host’s phones offline',
  ).then(
    () => {
      offlineMs = now() - lostAt;
    },
    () => undefined,
  );
  const lost = await runLoad(target, others, 1, loadMs);
  await watchOffline;

  const f8 = figures(run8.result);
  const f64 = figures(run64.result);
  const p95Before = tapP95(before, () => true);
  const p95Lost = tapP95(lost, () => true);
  const figuresOut: LabScaleFigures = {
    phones: total,
    sshHost: !missing,
    onlineMs,
    stateP95: state.p95,
    rssIdleMiB: (idle?.rssKiB ?? rssIdle) / 1024,
    rss64PeakMiB: rss64Peak / 1024,
    rss64AfterGcMiB: (after64?.rssKiB ?? Number.NaN) / 1024,
    calls8: f8.callsPerSecond,
    calls64: f64.callsPerSecond,
    cpu8: run8.cpu,
    cpu64: run64.cpu,
    tapP95Before: p95Before,
    tapP95Lost: p95Lost,
    consoleListedMs,
    searchMs,
    heapMiB: heapBusy ?? heapIdle,
  };

  const errors = (f: ReturnType<typeof figures>): string =>
    Object.entries(f.errors)
      .map(([code, n]) => `${code} ×${n}`)
      .join(', ') || 'none';
  const goal = (ok: boolean): string => (ok ? 'met' : '**not met**');
  report.add(
    table(
      ['What', 'Measured', 'Goal (#39)', ''],
      [
        [
          `All ${total} phones online`,
          `${(onlineMs / 1000).toFixed(1)} s after the bridge listened`,
          '≤ 10 s',
          goal(onlineMs <= 10_000),
        ],
        [
          'Admin state (GET /admin/api/state)',
          `p50 ${ms(state.p50)} ms, p95 ${ms(state.p95)} ms right after all online; settled: p50 ${ms(stateSettled.p50)} ms, p95 ${ms(stateSettled.p95)} ms`,
          'p95 ≤ 50 ms',
          goal(state.p95 <= 50),
        ],
        [
          'Bridge RSS idle (after GC)',
          mib(idle?.rssKiB ?? rssIdle),
          '≤ 200 MiB',
          goal((idle?.rssKiB ?? rssIdle) / 1024 <= 200),
        ],
        [
          'Bridge RSS, 64 agents calling',
          `peak ${mib(rss64Peak)}, after GC ${mib(after64?.rssKiB ?? Number.NaN)}`,
          '≤ 300 MiB',
          goal(rss64Peak / 1024 <= 300),
        ],
        [
          `Tap p95 on the other hosts' phones, one host lost`,
          `${ms(p95Before)} ms before, ${ms(p95Lost)} ms with it lost (${(((p95Lost - p95Before) / p95Before) * 100).toFixed(0)} %)`,
          '≤ +10 %',
          goal(p95Lost <= p95Before * 1.1),
        ],
        [
          'Relayed calls a second',
          `8 agents ${f8.callsPerSecond.toFixed(0)} (bridge CPU ${run8.cpu.toFixed(0)} %); 64 agents ${f64.callsPerSecond.toFixed(0)} (CPU ${run64.cpu.toFixed(0)} %)`,
          'stated',
          '',
        ],
        [
          `Console: Devices lists all ${total}`,
          consoleListedMs === null ? 'not measured' : `${ms(consoleListedMs)} ms`,
          '≤ 2 s',
          consoleListedMs === null ? '' : goal(consoleListedMs <= 2000),
        ],
        [
          'Console: a search for one serial',
          searchMs === null ? 'not measured' : `${ms(searchMs)} ms (p50 of 3)`,
          '≤ 100 ms',
          searchMs === null ? '' : goal(searchMs <= 100),
        ],
        [
          'Console: the page’s JS heap',
          heapIdle === null
            ? 'not measured'
            : `${heapIdle.toFixed(1)} MiB idle, ${heapBusy?.toFixed(1) ?? '–'} MiB after the 64 agents`,
          '< 100 MiB',
          heapIdle === null ? '' : goal(Math.max(heapIdle, heapBusy ?? 0) < 100),
        ],
      ],
    ),
  );
  report.add(
    [
      `Calls: 8 agents (one per host) and 64 agents (8 per host), each one caller alternating android_tap and`,
      `android_device_status on its own phone for ${loadMs / 1000} s. 8 agents: tap p50 ${ms(f8.byTool.android_tap?.p50 ?? Number.NaN)} ms,`,
      `p95 ${ms(f8.byTool.android_tap?.p95 ?? Number.NaN)} ms, errors ${errors(f8)}. 64 agents: tap p50`,
      `${ms(f64.byTool.android_tap?.p50 ?? Number.NaN)} ms, p95 ${ms(f64.byTool.android_tap?.p95 ?? Number.NaN)} ms, errors ${errors(f64)}.`,
      `Bridge CPU is the process's user+system time over the run (100 % = one core). Host lost: ${lostAddress.startsWith('ssh') ? 'sshd and its sessions killed' : 'its adb server stopped'};`,
      `its phones were offline ${offlineMs === null ? 'not within 15 s' : `${ms(offlineMs)} ms later`}; the 56 agents on the other 7 hosts ran ${loadMs / 1000} s before and ${loadMs / 1000} s from the loss (errors ${errors(figures(lost))}).`,
      `The bridge settled ${settledMs === null ? 'not within 20 s' : `${ms(settledMs)} ms`} after the first state loop (under 10 % of a core for a second).`,
      `Heap after GC: idle ${mib(idle?.heapUsedKiB ?? Number.NaN)} used, after the 64 agents ${mib(after64?.heapUsedKiB ?? Number.NaN)}.`,
      ...notes,
    ].join(' '),
  );
  await browser?.close();
  return figuresOut;
}
