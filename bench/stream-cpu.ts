/**
 * Part h3 (#26): the bridge's CPU with 8 phones each streaming to one open live view, then with
 * nobody watching and no lease (the streams must stop: no minicap process left on any phone),
 * then the same 8 views with the stream turned off (screencap) for scale. The phones' screens
 * keep changing throughout (commands run on the phones themselves); CPU seconds of the bridge
 * process (/proc, user + system) over a fixed window, as a share of one core.
 */
import type { AdbServerRig } from '../test/helpers/adb-server';
import type { SimulatedPhone } from '../main/sim/phone';
import { startPhones, startSpawnedBridge, waitForDevices, waitUntil, type Cleanup } from './env';
import { readCpuSeconds } from './memory';
import type { Report } from './report';
import { now, table } from './stats';
import { ANDROID_12L, focusNoteField, keepChanging, openViewer, streamOf, waitForStreams } from './stream-view';

const PHONES = 8;
const MINICAP_DIR = '/data/local/tmp/xagent-minicap';

function minicapRunning(phone: SimulatedPhone): boolean {
  return phone.processes.list().some((p) => p.name === 'minicap' || p.name === 'app_process');
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface Window {
  label: string;
  bridgeCore: number;
  benchCore: number;
  adbCore: number;
  framesPerSecond: number | null;
  lanes: string;
  /** Phones whose stream ran at the window's end. */
  streamsRunning: number;
}

export async function streamCpuBench(
  report: Report,
  cleanup: Cleanup,
  adb: AdbServerRig,
  quick: boolean,
  log: (line: string) => void,
): Promise<void> {
  const windowMs = quick ? 5_000 : 15_000;
  log(`h3. ${PHONES} usb-phone phones on Android 12L, stream on for every phone, a bridge process`);
  const set = await startPhones(
    cleanup,
    adb,
    Array.from({ length: PHONES }, () => 'usb-phone' as const),
    'HC',
    ANDROID_12L,
  );
  await Promise.all(set.phones.map((phone) => focusNoteField(phone)));
  const bridge = await startSpawnedBridge(cleanup, adb);
  const pid = bridge.pid!;
  const ids = await waitForDevices(
    bridge,
    set.phones.map((_p, i) => set.serial(i)),
    90_000,
  );
  const on = await bridge.admin('PUT', '/admin/api/screen-stream', { default: 'on' });
  if (on.status !== 200) throw new Error(`stream default on: HTTP ${on.status} ${JSON.stringify(on.body)}`);
  // One command at a time per phone: about three changes a second on each (the simulator draws them all on this computer).
  const drivers = set.phones.map((phone) => keepChanging(phone, 1));

  const measure = async (label: string, viewed: boolean): Promise<Window> => {
    let frames = 0;
    const lanes = new Set<string>();
    const lastSeq = new Map<string, number>();
    const viewers = viewed
      ? ids.map((id) =>
          openViewer(bridge, id, (frame) => {
            if (frame.seq !== lastSeq.get(id) && frame.fresh) {
              frames++;
              lanes.add(frame.lane);
            }
            lastSeq.set(id, frame.seq);
          }),
        )
      : [];
    await pause(3_000);
    frames = 0;
    lanes.clear();
    const cpu0 = { bridge: readCpuSeconds(pid), bench: readCpuSeconds(process.pid), adb: readCpuSeconds(adb.pid) };
    const t0 = now();
    await pause(windowMs);
    const seconds = (now() - t0) / 1000;
    const streams = await Promise.all(ids.map((id) => streamOf(bridge, id)));
    const share = (from: number, p: number): number => ((readCpuSeconds(p) - from) / seconds) * 100;
    const window: Window = {
      label,
      bridgeCore: share(cpu0.bridge, pid),
      benchCore: share(cpu0.bench, process.pid),
      adbCore: share(cpu0.adb, adb.pid),
      framesPerSecond: viewed ? frames / seconds : null,
      lanes: [...lanes].join(', ') || '—',
      streamsRunning: streams.filter((st) => st?.state === 'ready').length,
    };
    await Promise.all(viewers.map((v) => v.stop()));
    return window;
  };

  const windows: Window[] = [];
  try {
    // The first viewers start the streams.
    const starters = ids.map((id) => openViewer(bridge, id, () => undefined));
    await waitForStreams(bridge, ids, 60_000);
    await Promise.all(starters.map((v) => v.stop()));
    log(`h3. ${PHONES} views open, streams running`);
    windows.push(await measure(`${PHONES} phones streaming, one open view each`, true));

    log('h3. views closed: waiting for every stream to stop (a phone counts as watched 60 s after its last frame)');
    const closedAt = now();
    await waitUntil(
      () => set.phones.every((phone) => !minicapRunning(phone) && (phone.fs.list(MINICAP_DIR) ?? []).length === 0),
      120_000,
      'minicap gone from every phone',
    );
    const stoppedAfter = (now() - closedAt) / 1000;
    const states = await Promise.all(ids.map((id) => streamOf(bridge, id)));
    if (states.some((s) => s?.state === 'ready' || s?.state === 'starting'))
      throw new Error(`streams not off: ${JSON.stringify(states)}`);
    const idle = await measure(
      `none watched, none leased (streams stopped ${stoppedAfter.toFixed(0)} s after the views closed)`,
      false,
    );
    if (set.phones.some(minicapRunning)) throw new Error('minicap started again with nobody watching');
    windows.push(idle);

    log(`h3. the stream turned off: ${PHONES} views on screencap`);
    const off = await bridge.admin('PUT', '/admin/api/screen-stream', { default: 'ask' });
    if (off.status !== 200) throw new Error(`stream default ask: HTTP ${off.status}`);
    windows.push(await measure(`${PHONES} phones, stream off, one open view each (screencap)`, true));
  } finally {
    const driven = await Promise.all(drivers.map((d) => d.stop()));
    const rate = driven.reduce((sum, d) => sum + d.changes / d.seconds, 0) / driven.length;
    log(`h3. screens changed ${rate.toFixed(1)} times a second per phone`);
    report.add(
      table(
        [
          `bridge CPU, ${PHONES} phones (${windowMs / 1000} s window)`,
          'bridge, % of one core',
          'distinct frames a second served, all views',
          'lane',
          'streams running at the end',
          'simulated phones + viewers (bench process)',
          'adb server',
        ],
        windows.map((w) => [
          w.label,
          w.bridgeCore.toFixed(1),
          w.framesPerSecond === null ? '—' : w.framesPerSecond.toFixed(1),
          w.lanes,
          String(w.streamsRunning),
          `${w.benchCore.toFixed(0)}%`,
          `${w.adbCore.toFixed(0)}%`,
        ]),
      ),
    );
    report.add(
      `Each phone's screen changed about ${rate.toFixed(1)} times a second throughout (one \`input\` command at a time growing and shrinking the note, ` +
        'run on the phone itself). The bridge runs in its own process; its CPU is user + system time from /proc over the window. "None watched": ' +
        'the viewers stopped and no lease was held; the bench waited until no minicap process and no minicap file was left on any phone ' +
        '(`phone.processes.list()`, the minicap folder), then measured. The simulated phones draw and encode their frames in the bench process.',
    );
  }
}
