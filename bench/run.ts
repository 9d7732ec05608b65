/**
 * `npm run bench [-- --quick]`: the speed figures of issues #5 and #6, measured through the
 * whole path on simulated phones and a private real adb server, printed as tables and
 * written to bench/results.md. Every process, server and temporary directory it starts is
 * stopped at the end, after an error and on Ctrl-C too.
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import {
  Cleanup,
  bindChannel,
  connectClient,
  setScreenChecks,
  startAdb,
  startInProcessBridge,
  startPhones,
  startSpawnedBridge,
  waitForDevices,
  type BridgeHandle,
} from './env';
import { measureLatency, type LatencyRow, type SampleCounts } from './latency';
import { figures, runLoad, LOAD_TOOLS, type LoadResult } from './load';
import { mib, readAfterGc, readCpuSeconds, readRss, RssSampler, type AfterGc } from './memory';
import { Report, machineInfo } from './report';
import { measureScreenshots, type ScreenshotRow } from './screenshot';
import { fastLaneBench } from './fast-lane';
import { labBench } from './lab';
import { labScaleBench } from './lab-scale';
import { takeoverBench } from './takeover';
import { streamBench } from './stream';
import { agentLoopBench } from './agent-loop';
import { bytes, ms, pct, signedMs, table } from './stats';
import type { AdbServerRig } from '../test/helpers/adb-server';
import type { WireClient } from './wire-client';

const QUICK = process.argv.includes('--quick');
/**
 * `-- --fast-lane-only`: part e alone (#17, #35: stock vs the default port-less lanes vs the UIA2
 * helper), printed and written to bench/fast-lane-results.md; bench/results.md is left as it was.
 * With `--agent-loop-only` too, part i follows in the same run and the same file.
 */
const FAST_LANE_ONLY = process.argv.includes('--fast-lane-only');
/**
 * `-- --part-a-only`: part a alone (one call through the bridge against the same adb command),
 * printed, bench/results.md left as it was: to compare the bridge's added time before and after a change.
 */
const PART_A_ONLY = process.argv.includes('--part-a-only');
/** `-- --lab-only`: part f alone (#27: turnover on usb-phone, /metrics with 32 phones), printed, bench/results.md left as it was. */
const LAB_ONLY = process.argv.includes('--lab-only');
/**
 * `-- --lab-scale-only`: part j alone (#39: 256 phones on 8 ADB hosts, one over SSH; the console
 * with them), printed, bench/results.md left as it was.
 */
const LAB_SCALE_ONLY = process.argv.includes('--lab-scale-only');
/** `-- --takeover-only`: part g alone (#26: a person's click to the tap on the phone), printed, bench/results.md left as it was. */
const TAKEOVER_ONLY = process.argv.includes('--takeover-only');
/**
 * `-- --stream-only`: part h alone (#26: the screen stream against screencap and the fast lane),
 * printed and written to bench/stream-results.md; bench/results.md is left as it was.
 */
const STREAM_ONLY = process.argv.includes('--stream-only');
/**
 * `-- --agent-loop-only`: part i alone (#35: tap by ref → screenshot, stream on against stock),
 * printed and written to bench/fast-lane-results.md; bench/results.md is left as it was.
 */
const AGENT_LOOP_ONLY = process.argv.includes('--agent-loop-only');
const RESULTS = join(__dirname, 'results.md');
const STREAM_RESULTS = join(__dirname, 'stream-results.md');
const FAST_LANE_RESULTS = join(__dirname, 'fast-lane-results.md');

/** Sample counts per timing profile; usb-phone calls take 0.1–2 s each, so fewer. */
const LATENCY_SAMPLES: Record<'instant' | 'usb-phone', SampleCounts> = QUICK
  ? {
      instant: { tap: 60, status: 40, uiTree: 30, screenshot: 8 },
      'usb-phone': { tap: 5, status: 10, uiTree: 0, screenshot: 3 },
    }
  : {
      instant: { tap: 300, status: 200, uiTree: 150, screenshot: 20 },
      'usb-phone': { tap: 10, status: 60, uiTree: 20, screenshot: 6 },
    };
/**
 * Taps with the screen checks off cost only `input tap` (~0.3 s on usb-phone), so they get
 * enough samples for a p50 that a millisecond goal can be judged by.
 */
const UNCHECKED_TAP_SAMPLES = QUICK ? { instant: 60, 'usb-phone': 10 } : { instant: 300, 'usb-phone': 40 };
/** Instant taps after a 300 ms idle pause each (two pauses per sample pair). */
const IDLE_PAUSE_TAP_SAMPLES = QUICK ? 10 : 60;

const SCREENSHOT_SAMPLES = QUICK ? { instant: 5, 'usb-phone': 3 } : { instant: 15, 'usb-phone': 6 };
const FARM_SIZE = 32;
const CALLERS = 4;
const ONE_PHONE_MS = QUICK ? 5_000 : 12_000;
const FARM_MS = QUICK ? 6_000 : 20_000;
const WARMUP_MS = QUICK ? 2_000 : 4_000;
const SLOW_MS = 5_000;
/** Simulated phone density (dpi), for the text-size estimate. */
const DENSITY = 420;

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** Goal (issue #5): at p50 the bridge adds at most 10 % and at most 2 ms. */
function latencyTable(rows: LatencyRow[]): string {
  return table(
    [
      'tool',
      'direct adbkit command',
      'n',
      'adbkit p50',
      'bridge p50',
      'added p50',
      'added %',
      'adbkit p95',
      'bridge p95',
      'goal ≤2 ms & ≤10%',
    ],
    rows.map((r) => {
      const added = r.bridge.p50 - r.adbkit.p50;
      const ratio = (added / r.adbkit.p50) * 100;
      return [
        r.tool,
        r.direct,
        String(r.bridge.count),
        ms(r.adbkit.p50),
        ms(r.bridge.p50),
        signedMs(added),
        pct(ratio),
        ms(r.adbkit.p95),
        ms(r.bridge.p95),
        added <= 2 && ratio <= 10 ? 'met' : added <= 2 ? 'ms met, % missed' : 'missed',
      ];
    }),
  );
}

function screenshotTables(rows: ScreenshotRow[]): string {
  const timing = table(
    [
      'phone profile',
      'n',
      'by hand p50',
      'by hand p95',
      'bridge ack p50',
      'bridge +download p50',
      'bridge +download p95',
      'faster than by hand?',
    ],
    rows.map((r) => [
      r.profile,
      String(r.bridge.count),
      ms(r.byHand.p50),
      ms(r.byHand.p95),
      ms(r.ack.p50),
      ms(r.bridge.p50),
      ms(r.bridge.p95),
      r.bridge.p50 < r.byHand.p50
        ? `yes, ${(r.byHand.p50 / r.bridge.p50).toFixed(1)}×`
        : `no (${(r.bridge.p50 / r.byHand.p50).toFixed(1)}× slower)`,
    ]),
  );
  const size = table(
    ['phone profile', 'phone PNG', 'delivered (default)', 'format, size', 'fewer bytes', 'goal ≥5×'],
    rows.map((r) => {
      const ratio = r.phonePngBytes / r.bridgeBytes;
      return [
        r.profile,
        bytes(r.phonePngBytes),
        bytes(r.bridgeBytes),
        `${r.mimeType}, ${r.width}×${r.height}`,
        `${ratio.toFixed(1)}×`,
        ratio >= 5 ? 'met' : 'missed',
      ];
    }),
  );
  const legible = table(
    [
      'phone profile',
      'phone screen',
      'delivered',
      'longest side ≥1280 or full size',
      '14 sp text height',
      'mean abs. difference vs phone PNG (0–255)',
    ],
    rows.map((r) => [
      r.profile,
      `${r.phoneWidth}×${r.phoneHeight}`,
      `${r.width}×${r.height}`,
      Math.max(r.width, r.height) >= Math.min(1280, Math.max(r.phoneWidth, r.phoneHeight)) ? 'yes' : 'no',
      `${r.textPx.toFixed(1)} px`,
      r.meanAbsError.toFixed(2),
    ]),
  );
  return `${timing}\n\n${size}\n\n${legible}`;
}

interface FarmRun {
  label: string;
  result: LoadResult;
  include?: (phone: number) => boolean;
}

function loadTable(runs: FarmRun[]): string {
  const rows: string[][] = [];
  for (const run of runs) {
    const f = figures(run.result, run.include);
    for (const tool of LOAD_TOOLS) {
      const s = f.byTool[tool]!;
      rows.push([run.label, tool, String(s.count), ms(s.p50), ms(s.p95), ms(s.p99)]);
    }
    const errors = Object.entries(f.errors)
      .map(([code, n]) => `${code} ×${n}`)
      .join(', ');
    rows.push([
      run.label,
      'all calls/s',
      f.callsPerSecond.toFixed(1),
      '',
      '',
      errors ? `errors: ${errors}` : 'no errors',
    ]);
  }
  return table(['run', 'tool', 'calls', 'p50', 'p95', 'p99'], rows);
}

/** One reading of the bridge's memory: RSS as it is, and RSS and heap right after a forced GC. */
interface MemoryMoment {
  label: string;
  rssKiB: number;
  afterGc: AfterGc | undefined;
}

function memoryTable(moments: MemoryMoment[], peakDuringLoadKiB: number, vmHwmKiB: number): string {
  const rows = moments.map((m) => [
    m.label,
    mib(m.rssKiB),
    m.afterGc ? mib(m.afterGc.rssKiB) : '–',
    m.afterGc ? mib(m.afterGc.heapUsedKiB) : '–',
    m.afterGc ? mib(m.afterGc.externalKiB) : '–',
  ]);
  rows.push([`highest RSS sampled during the ${FARM_SIZE}-phone run`, mib(peakDuringLoadKiB), '', '', '']);
  rows.push(['peak RSS of the process (VmHWM)', mib(vmHwmKiB), '', '', '']);
  return table(['moment', 'RSS', 'RSS after GC', 'JS heap after GC', 'external (buffers)'], rows);
}

/** Part b and c: 32 phones on a bridge in its own process. */
async function farmParts(report: Report, cleanup: Cleanup, adb: AdbServerRig): Promise<void> {
  log(`b/c. starting ${FARM_SIZE} usb-phone simulated phones and a bridge process`);
  const profiles = Array.from({ length: FARM_SIZE }, () => 'usb-phone' as const);
  // adb 1.0.41 now and then drops a host connection while many TCP phones attach; one more try.
  const farm = await startPhones(cleanup, adb, profiles, 'F').catch(async (error: unknown) => {
    log(
      `attaching ${FARM_SIZE} phones failed (${error instanceof Error ? error.message : String(error)}); trying once more`,
    );
    if (!adb.running) throw error;
    return startPhones(cleanup, adb, profiles, 'F2');
  });
  const bridge: BridgeHandle = await startSpawnedBridge(cleanup, adb);
  const pid = bridge.pid!;
  const moments: MemoryMoment[] = [];
  const remember = async (label: string, collect = true): Promise<void> => {
    const rss = readRss(pid)?.rssKiB ?? Number.NaN;
    moments.push({ label, rssKiB: rss, afterGc: collect ? await readAfterGc(pid, bridge.probeFile!) : undefined });
  };
  await remember('listening, phones not yet read', false);
  const serials = farm.farm.phones.map((p) => p.serial);
  const ids = await waitForDevices(bridge, serials, 90_000);
  // Let start-up work (fact reads, first polls) finish before reading the idle figure.
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  await remember(`idle, ${FARM_SIZE} phones attached and read`);
  const client: WireClient = await connectClient(cleanup, bridge, 'farm client');
  const channels: string[] = [];
  for (const id of ids) channels.push(await bindChannel(bridge, client, id));
  await remember(`${FARM_SIZE} channels bound`);
  const target = { client, channels };

  log('b. warm-up on every phone, then one phone with 4 callers');
  const all = Array.from({ length: FARM_SIZE }, (_v, i) => i);
  // Warm-up at full load, so the measured runs do not pay for first calls (JIT, caches).
  await runLoad(target, all, CALLERS, WARMUP_MS);
  const one = await runLoad(target, [0], CALLERS, ONE_PHONE_MS);
  await remember('after warm-up and the one-phone run');

  log(`b. ${FARM_SIZE} phones × ${CALLERS} callers for ${FARM_MS / 1000} s`);
  const cpu0 = { bridge: readCpuSeconds(pid), bench: readCpuSeconds(process.pid), adb: readCpuSeconds(adb.pid) };
  const sampler = new RssSampler(pid);
  const farmRun = await runLoad(target, all, CALLERS, FARM_MS);
  const peakDuringLoad = sampler.stop();
  const seconds = farmRun.elapsedMs / 1000;
  const share = (from: number, p: number): string => `${(((readCpuSeconds(p) - from) / seconds) * 100).toFixed(0)}%`;
  const cpu = { bridge: share(cpu0.bridge, pid), bench: share(cpu0.bench, process.pid), adb: share(cpu0.adb, adb.pid) };
  await remember(`after the ${FARM_SIZE}-phone run (${farmRun.calls.length} calls)`);

  const slowIndex = FARM_SIZE - 1;
  const slowPhone = farm.phones[slowIndex]!;
  log(`b. again with phone ${slowIndex} answering every command after ${SLOW_MS / 1000} s`);
  slowPhone.setLatency(SLOW_MS);
  const slowRun = await runLoad(target, all, CALLERS, FARM_MS, async () => {
    // Time is up: the slow phone's queue would keep callers waiting for many seconds more.
    slowPhone.setLatency(0);
    await bridge.admin('POST', `/admin/api/devices/${ids[slowIndex]!}/stop`);
  });
  await remember(`after the slow-phone run (${slowRun.calls.length} calls more)`);
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  await remember('3 s later, idle');
  const vmHwm = readRss(pid)?.peakKiB ?? Number.NaN;

  const oneRate = figures(one).callsPerSecond;
  const farmRate = figures(farmRun).callsPerSecond;
  const goal = 0.8 * FARM_SIZE * oneRate;
  report.section(`b. ${FARM_SIZE} phones × ${CALLERS} concurrent callers`);
  report.add(
    `usb-phone simulated phones, default safety policy; each caller alternates android_tap and android_device_status as fast as ` +
      `answers come (taps on a phone run one at a time, FIFO, each with the gate's UI dump; status calls run concurrently). ` +
      `Bridge in its own process (\`device-bridge serve\`), one WebSocket. After ${WARMUP_MS / 1000} s of warm-up on every phone: one phone for ${ONE_PHONE_MS / 1000} s, then ${FARM_SIZE} ` +
      `phones for ${FARM_MS / 1000} s, then ${FARM_SIZE} phones with phone ${slowIndex} answering every command after ${SLOW_MS / 1000} s ` +
      `(its calls still queued at the end are canceled with the stop button). Throughput counts calls finished within the time.`,
  );
  report.add(
    loadTable([
      { label: '1 phone', result: one },
      { label: `${FARM_SIZE} phones`, result: farmRun },
      {
        label: `${FARM_SIZE} phones, one slow: the other ${FARM_SIZE - 1}`,
        result: slowRun,
        include: (p) => p !== slowIndex,
      },
      { label: `${FARM_SIZE} phones, one slow: the slow phone`, result: slowRun, include: (p) => p === slowIndex },
    ]),
  );
  const others = (run: LoadResult): ReturnType<typeof figures> => figures(run, (p) => p !== slowIndex);
  report.add(
    table(
      ['figure', 'value', 'goal', 'verdict'],
      [
        [
          `throughput, ${FARM_SIZE} phones`,
          `${farmRate.toFixed(1)} calls/s = ${(farmRate / (FARM_SIZE * oneRate)).toFixed(2)} × ${FARM_SIZE} × one-phone rate (${oneRate.toFixed(2)}/s)`,
          `≥ ${goal.toFixed(1)} calls/s (0.8×)`,
          farmRate >= goal ? 'met' : 'missed',
        ],
        ...LOAD_TOOLS.map((tool) => {
          const before = others(farmRun).byTool[tool]!.p95;
          const after = others(slowRun).byTool[tool]!.p95;
          return [
            `p95 ${tool}, the other ${FARM_SIZE - 1} phones`,
            `${ms(before)} → ${ms(after)} with one phone slow (${pct(((after - before) / before) * 100)})`,
            'unchanged (within 10 %)',
            after <= before * 1.1 ? 'met' : 'missed',
          ];
        }),
        [
          `CPU during the ${FARM_SIZE}-phone run`,
          `bridge ${cpu.bridge}, simulated phones + client ${cpu.bench}, adb server ${cpu.adb} of one core`,
          '',
          '',
        ],
      ],
    ),
  );

  report.section(`c. Resident memory of the bridge process with ${FARM_SIZE} phones`);
  report.add(memoryTable(moments, peakDuringLoad, vmHwm));
  const bench = readRss(process.pid);
  const adbRss = readRss(adb.pid);
  report.add(
    'The bridge is `device-bridge serve` run through tsx (TypeScript compiled at load time, which is part of the baseline), with ' +
      '`--expose-gc` and bench/bridge-probe.mjs so the bench can force a full collection before reading "after GC" figures. ' +
      `For scale: the bench process (${FARM_SIZE + 2} simulated phones, their frame caches and the clients) holds ` +
      `${mib(bench?.rssKiB ?? Number.NaN)}, the adb server ${mib(adbRss?.rssKiB ?? Number.NaN)}.`,
  );
}

async function main(): Promise<void> {
  const cleanup = new Cleanup();
  let interrupted = false;
  const onSignal = (): void => {
    interrupted = true;
    log('interrupted; cleaning up (bench/results.md is left as it was)');
    void cleanup.runAll().then(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const report = new Report(machineInfo(), QUICK ? 'quick' : 'full');
  const started = Date.now();
  let failed: unknown;
  let adbServer: AdbServerRig | undefined;
  try {
    if (FAST_LANE_ONLY || AGENT_LOOP_ONLY) {
      adbServer = await startAdb(cleanup);
      if (FAST_LANE_ONLY) await fastLaneBench(report, cleanup, adbServer, QUICK, log);
      if (FAST_LANE_ONLY && AGENT_LOOP_ONLY) await cleanup.runNow('fast lane phones');
      if (AGENT_LOOP_ONLY) await agentLoopBench(report, cleanup, adbServer, QUICK, log);
      report.add(
        `${FAST_LANE_ONLY && AGENT_LOOP_ONLY ? 'Parts e and i' : FAST_LANE_ONLY ? 'Part e' : 'Part i'} alone ` +
          `(\`npm run bench -- ${[FAST_LANE_ONLY ? '--fast-lane-only' : '', AGENT_LOOP_ONLY ? '--agent-loop-only' : ''].filter(Boolean).join(' ')}${QUICK ? ' --quick' : ''}\`), ` +
          `${((Date.now() - started) / 1000).toFixed(0)} s; load average at the end ${loadavg()
            .map((l) => l.toFixed(2))
            .join(' ')}.`,
      );
      report.write(FAST_LANE_RESULTS);
      log(`written ${FAST_LANE_RESULTS}`);
      return;
    }
    if (LAB_SCALE_ONLY) {
      await labScaleBench(report, cleanup, QUICK, log);
      report.add(
        `Part j alone (\`npm run bench -- --lab-scale-only${QUICK ? ' --quick' : ''}\`), ${((Date.now() - started) / 1000).toFixed(0)} s; ` +
          `load average at the end ${loadavg()
            .map((l) => l.toFixed(2))
            .join(' ')}.`,
      );
      return;
    }
    if (LAB_ONLY) {
      await labBench(report, cleanup, await startAdb(cleanup), QUICK, log);
      return;
    }
    if (TAKEOVER_ONLY) {
      await takeoverBench(report, cleanup, await startAdb(cleanup), QUICK, log);
      return;
    }
    if (STREAM_ONLY) {
      adbServer = await startAdb(cleanup);
      await streamBench(report, cleanup, adbServer, QUICK, log);
      // Written here: a return from this try leaves main after the finally.
      report.add(`Part h alone (\`npm run bench -- --stream-only\`), ${((Date.now() - started) / 1000).toFixed(0)} s.`);
      report.write(STREAM_RESULTS);
      log(`written ${STREAM_RESULTS}`);
      return;
    }
    log('starting a private adb server and two simulated phones (instant, usb-phone)');
    const adb = await startAdb(cleanup);
    adbServer = adb;
    const pair = await startPhones(cleanup, adb, ['instant', 'usb-phone'], 'A');
    const bridge = await startInProcessBridge(cleanup, adb);
    const [instantId, usbId] = await waitForDevices(bridge, [pair.serial(0), pair.serial(1)]);
    const client = await connectClient(cleanup, bridge, 'bench client');
    const channels = {
      instant: await bindChannel(bridge, client, instantId!),
      'usb-phone': await bindChannel(bridge, client, usbId!),
    };

    report.section('a. One call: bridge vs the same adb command through adbkit');
    report.add(
      'Each tool through the whole bridge (WebSocket → queue → adbkit → adb → phone → ack), in this process, against the ' +
        'same adb commands issued directly through adbkit on the same adb server and phone, alternating call by call after warm-up.',
    );
    for (const profile of ['instant', 'usb-phone'] as const) {
      log(`a. latency, ${profile} phone`);
      const index = profile === 'instant' ? 0 : 1;
      const target = {
        client,
        channelId: channels[profile],
        adbPort: adb.port,
        serial: pair.serial(index),
        phone: pair.phones[index]!,
      };
      const rows = await measureLatency(target, LATENCY_SAMPLES[profile], log);
      // The safety gate reads the screen (a UI dump) before a control action by default; the
      // same taps with those checks off show what the transport and queue alone add.
      if (await setScreenChecks(bridge, false)) {
        const counts = { tap: UNCHECKED_TAP_SAMPLES[profile], status: 0, uiTree: 0, screenshot: 0 };
        rows.splice(1, 0, ...(await measureLatency(target, counts, log, ' (screen checks off)')));
        // The same instant taps with the process idle 300 ms before each call, as while a
        // usb-phone works: what the idle CPU, not the phone, adds to the bridge's path.
        if (profile === 'instant')
          rows.splice(
            2,
            0,
            ...(await measureLatency(
              target,
              { ...counts, tap: IDLE_PAUSE_TAP_SAMPLES },
              log,
              ' (screen checks off, 300 ms idle before each call)',
              300,
            )),
          );
        await setScreenChecks(bridge, true);
      }
      report.add(`**${profile} phone**\n\n${latencyTable(rows)}`);
    }
    report.add(
      'By default the safety gate reads the screen before every control action (`dumpsys window displays` and `windows` at once, and a `uiautomator dump`, ' +
        'to classify what the tap touches), so a default tap costs a UI dump on top of `input tap`; "screen checks off" is the same tap ' +
        'with every screen-based risk class set to allow (PUT /admin/api/policies), i.e. transport, queue and journal only. ' +
        'Device status, UI tree and screenshot are observation tools and are not probed. ' +
        "The bridge reads exit statuses through adb's shell protocol v2, so each command is one command on the phone, as in " +
        'the direct adbkit call (phones without v2 get a legacy shell with an `echo` of the exit status). ' +
        '"300 ms idle before each call" is the instant tap again with the process left idle before every call on both paths, as it is while a ' +
        'usb-phone runs its command: the same code then takes longer (cold caches, an idle virtual CPU waking up), and that, not the phone, is ' +
        'what the usb-phone rows add over the instant ones.',
    );

    await cleanup.runNow('bench client');
    await cleanup.runNow('in-process bridge');
    if (PART_A_ONLY) return;

    report.section('d. Screenshot: bridge (invoke → ack → download) vs `adb exec-out screencap -p` by hand');
    report.add(
      'Default settings (no arguments). By hand = the real adb CLI (`adb -P PORT -s SERIAL exec-out screencap -p`), process start included, ' +
        'as a person or script would run it. Every capture is of a new frame. The bridge runs in its own process here ' +
        '(`device-bridge serve`), as the by-hand adb CLI does: the simulated phones draw every new frame in the bench process, ' +
        "and a bridge sharing that JavaScript thread would be charged for the phone's own work.",
    );
    const shotBridge = await startSpawnedBridge(cleanup, adb);
    const [shotInstantId, shotUsbId] = await waitForDevices(shotBridge, [pair.serial(0), pair.serial(1)]);
    const shotClient = await connectClient(cleanup, shotBridge, 'screenshot client');
    const shotChannels = {
      instant: await bindChannel(shotBridge, shotClient, shotInstantId!),
      'usb-phone': await bindChannel(shotBridge, shotClient, shotUsbId!),
    };
    // Part a again against this bridge: deployed, the bridge has its own process too.
    const ownProcessRows: string[] = [];
    if (await setScreenChecks(shotBridge, false)) {
      for (const profile of ['instant', 'usb-phone'] as const) {
        log(`a (own process). latency, ${profile} phone, screen checks off`);
        const index = profile === 'instant' ? 0 : 1;
        const target = {
          client: shotClient,
          channelId: shotChannels[profile],
          adbPort: adb.port,
          serial: pair.serial(index),
          phone: pair.phones[index]!,
        };
        const rows = await measureLatency(
          target,
          { ...LATENCY_SAMPLES[profile], tap: UNCHECKED_TAP_SAMPLES[profile], screenshot: 0 },
          log,
          ' (screen checks off)',
        );
        ownProcessRows.push(`**${profile} phone, bridge in its own process**\n\n${latencyTable(rows)}`);
      }
      await setScreenChecks(shotBridge, true);
    }
    const shots: ScreenshotRow[] = [];
    for (const profile of ['instant', 'usb-phone'] as const) {
      log(`d. screenshots, ${profile} phone`);
      const index = profile === 'instant' ? 0 : 1;
      shots.push(
        await measureScreenshots(
          {
            bridge: shotBridge,
            client: shotClient,
            channelId: shotChannels[profile],
            adb,
            serial: pair.serial(index),
            phone: pair.phones[index]!,
            density: DENSITY,
          },
          profile,
          SCREENSHOT_SAMPLES[profile],
          log,
        ),
      );
    }
    report.add(screenshotTables(shots));

    if (ownProcessRows.length > 0) {
      report.section('a, again: the bridge in its own process');
      report.add(
        'Part a measured against the `device-bridge serve` process of part d (screen checks off), as a bridge is deployed: ' +
          'the simulated phones and the direct adbkit calls stay in the bench process, the bridge does not share their thread.',
      );
      for (const rows of ownProcessRows) report.add(rows);
    }

    await cleanup.runNow('screenshot client');
    await cleanup.runNow('spawned bridge');
    await cleanup.runNow('phones A');
    await farmParts(report, cleanup, adb);
    await fastLaneBench(report, cleanup, adb, QUICK, log);
    await labBench(report, cleanup, adb, QUICK, log);
    await takeoverBench(report, cleanup, adb, QUICK, log);
    await streamBench(report, cleanup, adb, QUICK, log);
    await agentLoopBench(report, cleanup, adb, QUICK, log);
    await labScaleBench(report, cleanup, QUICK, log);
  } catch (error) {
    failed = error;
    log(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    report.section('Bench failed');
    report.add(`The run stopped early: ${error instanceof Error ? error.message : String(error)}`);
    // A private adb server that died on its own says why in its log (adb prints its fatal line last).
    if (adbServer && !adbServer.running) {
      const tail = adbServer.log().split('\n').slice(-12).join('\n');
      log(`the private adb server is no longer running; the end of its log:\n${tail}`);
      report.add(`The private adb server had stopped; the end of its log:\n\n\`\`\`\n${tail}\n\`\`\``);
    }
  } finally {
    log('cleaning up');
    await cleanup.runAll();
  }
  if (
    interrupted ||
    FAST_LANE_ONLY ||
    AGENT_LOOP_ONLY ||
    STREAM_ONLY ||
    PART_A_ONLY ||
    LAB_ONLY ||
    LAB_SCALE_ONLY ||
    TAKEOVER_ONLY
  ) {
    process.exitCode = failed ? 1 : 0;
    return;
  }
  report.add(`Total bench time ${((Date.now() - started) / 1000).toFixed(0)} s.`);
  report.write(RESULTS);
  log(`written ${RESULTS}`);
  process.exitCode = failed ? 1 : 0;
}

void main();
