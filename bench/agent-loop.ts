/**
 * Part i (#35, "agent loop"): a vision agent's step — tap by ref on what the last screenshot
 * showed, then a screenshot — under the default policy, side by side in one run on two
 * `usb-phone` phones (Android 12L) served by one bridge in its own process, compiled as installed:
 *
 * - L, "the bridge's loop": the screen stream on, the lanes the bridge runs by default
 *   (scrcpy-server for input, the snapshot helper for the tree), timed once both are `ready`;
 * - K, "the stock loop": stream off, the port-less programs turned off through the admin route,
 *   nothing running on the phone (screencap, the gate's UI dump, `input tap`).
 *
 * Each step taps "Next item" on the simulated list app's item page (app-list.ts), which opens
 * the next item: every tap changes the screen, so a screenshot that shows the tap differs from
 * the one before it (its sha256) and is not answered `unchanged`. The steps of the two loops
 * alternate, so load affects them alike. The table says which lanes served the taps, where the
 * screenshots came from, and how many tree reads (the annotation's and the gate's) each
 * port-less program served or left to the stock lane during the timed steps (admin state).
 */
import type { AdbServerRig } from '../test/helpers/adb-server';
import type { AdminPhoneProgram } from '../main/contract/admin-api';
import {
  bindChannel,
  callTool,
  compileBridge,
  connectClient,
  programsOf,
  setPrograms,
  startPhones,
  startSpawnedBridge,
  waitForDevices,
  waitForProgramsReady,
  type BridgeHandle,
  type Cleanup,
} from './env';
import type { Report } from './report';
import { ms, now, summarize, table, type Summary } from './stats';
import { ANDROID_12L, waitForStreams } from './stream-view';
import type { WireClient } from './wire-client';

type Loop = 'bridge' | 'stock';
const LOOP_LABEL: Record<Loop, string> = {
  bridge: 'stream on, default lanes (phone L)',
  stock: 'stock: programs off, screencap, UI dump, `input tap` (phone K)',
};
const STEP_GOAL_MS = 150;

interface Seen {
  sha256: string;
  nextRef: string | null;
}

interface LoopFigures {
  step: number[];
  tap: number[];
  shot: number[];
  lanes: Map<string, number>;
  sources: Map<string, number>;
  showedTap: number;
  refused: string[];
}

/** An annotated screenshot, downloaded: its sha256 and the ref of "Next item" on it. */
async function annotatedShot(
  bridgeUrl: string,
  client: WireClient,
  channelId: string,
): Promise<{ result: Record<string, any>; seen: Seen }> {
  const result = await callTool(client, channelId, 'android_screenshot', { annotate: true });
  const res = await fetch(`${bridgeUrl}${String(result.download_url)}`, { signal: AbortSignal.timeout(30_000) });
  if (res.status !== 200) throw new Error(`download: HTTP ${res.status}`);
  await res.arrayBuffer();
  const elements = (result.elements ?? []) as Array<{ ref: string; text: string }>;
  const next = elements.find((e) => e.text === 'Next item');
  return { result, seen: { sha256: String(result.sha256), nextRef: next?.ref ?? null } };
}

function count(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

function spread(map: Map<string, number>): string {
  return [...map].map(([k, v]) => `${k} ${v}`).join(', ') || '—';
}

/** Each program's served / fell-back counters, to subtract one reading from another. */
async function programCounts(bridge: BridgeHandle, deviceId: string): Promise<Map<string, AdminPhoneProgram>> {
  return new Map((await programsOf(bridge, deviceId)).map((p) => [p.program, p]));
}

/** The short name of each program in the table (the lanes' words where a lane is named after it). */
const PROGRAM_WORDS: Record<AdminPhoneProgram['program'], string> = {
  scrcpy_input: 'scrcpy',
  ui_reader: 'ui_reader',
  snapshot_tree: 'snapshot',
  uia2_server: 'uia2',
  minicap_stream: 'minicap',
};

/** What each program served (and left to the stock lane) between two readings, or its state when off. */
function programsServed(before: Map<string, AdminPhoneProgram>, after: Map<string, AdminPhoneProgram>): string {
  return (
    [...after.values()]
      .map((p) => {
        const name = PROGRAM_WORDS[p.program];
        if (p.state === 'off') return `${name} off`;
        const was = before.get(p.program);
        return `${name} ${p.served - (was?.served ?? 0)} served, ${p.fell_back - (was?.fell_back ?? 0)} to stock`;
      })
      .join('; ') || '—'
  );
}

export async function agentLoopBench(
  report: Report,
  cleanup: Cleanup,
  adb: AdbServerRig,
  quick: boolean,
  log: (line: string) => void,
): Promise<void> {
  const steps = quick ? 6 : 20;
  log('i. agent loop: two usb-phone phones on Android 12L (L stream on, K stock), one bridge process');
  const set = await startPhones(cleanup, adb, ['usb-phone', 'usb-phone'], 'I', ANDROID_12L);
  compileBridge((line) => log(`i. ${line}`));
  const bridge = await startSpawnedBridge(cleanup, adb, { built: true });
  const [idL, idK] = (await waitForDevices(bridge, [set.serial(0), set.serial(1)])) as [string, string];
  const client = await connectClient(cleanup, bridge, 'agent loop client');
  // K: the stock loop, as on a phone whose person turned the programs off on its card.
  await setPrograms(bridge, idK, 'disable');
  const enabled = await bridge.admin('POST', `/admin/api/devices/${idL}/programs`, {
    action: 'enable',
    program: 'minicap_stream',
  });
  if (enabled.status !== 200) throw new Error(`enable the stream: HTTP ${enabled.status}`);
  const channels: Record<Loop, string> = {
    bridge: await bindChannel(bridge, client, idL),
    stock: await bindChannel(bridge, client, idK),
  };
  await waitForStreams(bridge, [idL], 30_000);

  // To the first item's page, where "Next item" is.
  const last: Record<Loop, Seen> = { bridge: { sha256: '', nextRef: null }, stock: { sha256: '', nextRef: null } };
  for (const loop of ['bridge', 'stock'] as const) {
    await callTool(client, channels[loop], 'android_launch_app', { package: 'com.example.list' });
    const tree = await callTool(client, channels[loop], 'android_ui_tree');
    const item = (tree.nodes as Array<{ ref?: string; text: string }>).find((n) => n.text === 'Item 1');
    if (!item?.ref) throw new Error(`${loop}: no "Item 1" in the list's tree`);
    await callTool(client, channels[loop], 'android_tap', { ref: item.ref });
    last[loop] = (await annotatedShot(bridge.url, client, channels[loop])).seen;
  }
  // L's first calls started its programs in the background; the loop is timed on them.
  await waitForProgramsReady(bridge, idL);
  const programsBefore = { bridge: await programCounts(bridge, idL), stock: await programCounts(bridge, idK) };

  const figures: Record<Loop, LoopFigures> = {
    bridge: { step: [], tap: [], shot: [], lanes: new Map(), sources: new Map(), showedTap: 0, refused: [] },
    stock: { step: [], tap: [], shot: [], lanes: new Map(), sources: new Map(), showedTap: 0, refused: [] },
  };
  // Two warm-up steps per loop, not counted.
  for (let i = -2; i < steps; i++) {
    for (const loop of i % 2 === 0 ? (['bridge', 'stock'] as const) : (['stock', 'bridge'] as const)) {
      const f = figures[loop];
      const ref = last[loop].nextRef;
      if (!ref) throw new Error(`${loop}: the last screenshot showed no "Next item"`);
      const t0 = now();
      const tapped = await callTool(client, channels[loop], 'android_tap', { ref });
      const t1 = now();
      const shot = await annotatedShot(bridge.url, client, channels[loop]);
      const t2 = now();
      const showed = shot.result.unchanged !== true && shot.seen.sha256 !== last[loop].sha256;
      last[loop] = shot.seen;
      if (i < 0) continue;
      f.step.push(t2 - t0);
      f.tap.push(t1 - t0);
      f.shot.push(t2 - t1);
      count(f.lanes, String(tapped.lane ?? '—'));
      count(f.sources, String(shot.result.source ?? '—'));
      if (showed) f.showedTap++;
    }
  }

  const programsAfter = { bridge: await programCounts(bridge, idL), stock: await programCounts(bridge, idK) };
  const served = {
    bridge: programsServed(programsBefore.bridge, programsAfter.bridge),
    stock: programsServed(programsBefore.stock, programsAfter.stock),
  };
  const summary = (loop: Loop): { step: Summary; tap: Summary; shot: Summary } => ({
    step: summarize(figures[loop].step),
    tap: summarize(figures[loop].tap),
    shot: summarize(figures[loop].shot),
  });
  const s = { bridge: summary('bridge'), stock: summary('stock') };
  report.section(
    'i. Agent loop (#35): tap by ref, then an annotated screenshot; usb-phone, Android 12L, default policy',
  );
  report.add(
    table(
      [
        'loop',
        'steps',
        'step p50',
        'step p95',
        'tap p50',
        'screenshot p50',
        'tap lanes',
        'screenshot sources',
        'port-less programs (timed steps)',
        'showed the tap',
        'goal',
      ],
      (['bridge', 'stock'] as const).map((loop) => [
        LOOP_LABEL[loop],
        String(s[loop].step.count),
        ms(s[loop].step.p50),
        ms(s[loop].step.p95),
        ms(s[loop].tap.p50),
        ms(s[loop].shot.p50),
        spread(figures[loop].lanes),
        spread(figures[loop].sources),
        served[loop],
        `${figures[loop].showedTap} of ${s[loop].step.count}`,
        loop === 'bridge'
          ? `p50 ≤ ${STEP_GOAL_MS} ms, every screenshot showing the tap: ${
              s.bridge.step.p50 <= STEP_GOAL_MS && figures.bridge.showedTap === s.bridge.step.count ? 'met' : 'missed'
            }`
          : '—',
      ]),
    ),
  );
  report.add(
    `A step: \`android_tap {ref}\` on "Next item" (the ref from the previous annotated screenshot's \`elements\`), then ` +
      '`android_screenshot {annotate: true}` and its download; each tap opens the next item, so a screenshot showing it ' +
      `differs from the one before. ${steps} steps per loop after 2 warm-up steps, the loops alternating step by step. ` +
      `Stock loop / bridge loop at p50: ${(s.stock.step.p50 / Math.max(s.bridge.step.p50, 0.001)).toFixed(1)}×.`,
  );
}
