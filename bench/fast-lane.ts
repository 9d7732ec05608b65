/**
 * Part e (#17, #35): the bridge's lanes side by side in one run, on `usb-phone` simulated phones
 * behind the private adb server, one bridge serving three phones:
 *
 * - S, "stock": the port-less programs turned off through the admin route (as a person does on
 *   the device card), ADB Keyboard installed: `input`, `uiautomator dump`, ADB Keyboard broadcasts;
 * - F, "fast": the default lanes — scrcpy-server for input, the xagent UI reader for the tree
 *   (agent-device's snapshot helper where it cannot serve), all reached through adb only — on a
 *   phone without ADB Keyboard; timed only once the admin state shows the programs `ready`;
 * - H, "UIA2 helper": appium-uiautomator2-server, the opt-in with open ports
 *   (`accept_open_ports: true`), no ADB Keyboard;
 * - "mobile-mcp-style": what mobile-mcp does on Android for each call, one `adb` CLI process per
 *   command (`adb -s SERIAL shell input tap …`, `exec-out uiautomator dump /dev/tty`), no safety
 *   checks (mobile-next/mobile-mcp, src/android.ts), against phone S.
 *
 * The bridge runs as installed: compiled (dist/, no tsx) in its own process, as `device-bridge
 * serve` runs; the simulated phones and the bench's agent are in this process.
 *
 * Calls of the paths alternate, so load affects them alike. Every row counts the lanes its
 * results said served them, so a column is never credited with a lane that fell back.
 *
 * The bridge's own added time: a tap through the bridge on F (screen checks off) against the
 * same tap sent through a second ScrcpyInputSession on F, and android_ui_tree through the bridge
 * on F against a UiReaderSession of the bench's own on phone S (same profile and screen; F's one
 * UiAutomation connection is held by the bridge's reader), both outside the bridge.
 */
import { execFile } from 'node:child_process';
import Adb from '@devicefarmer/adbkit';
import type { AdbServerRig } from '../test/helpers/adb-server';
import { startSimFarm } from '../main/sim/sim-farm';
import { createSimulatedPhone, type SimulatedPhone } from '../main/sim/phone';
import { AdbDeviceShell } from '../main/core/devices/adb-device-shell';
import { ScrcpyInputSession } from '../main/core/scrcpy/scrcpy-input-session';
import { installUiReaderJar, uiReaderJarLocalPath } from '../main/core/ui-reader/ui-reader-jar';
import { UiReaderSession } from '../main/core/ui-reader/ui-reader-session';
import {
  bindChannel,
  bridgeDevices,
  callTool,
  connectClient,
  programsOf,
  setPrograms,
  setScreenChecks,
  compileBridge,
  startSpawnedBridge,
  waitForDevices,
  waitForProgramsReady,
  waitUntil,
  type BridgeHandle,
  type Cleanup,
} from './env';
import { IDLE_TAP } from './latency';
import type { Report } from './report';
import { ms, now, summarize, table, type Summary } from './stats';
import type { WireClient } from './wire-client';

type Column = 'stock' | 'fast' | 'helper' | 'mcp';
const COLUMNS: readonly Column[] = ['stock', 'fast', 'helper', 'mcp'];
/** The phones' screen (createSimulatedPhone's default), for the direct scrcpy session's touch messages. */
const SCREEN = { width: 1080, height: 2400 };
const CHINESE = '你好，世界';

/** A timed path; `count` is false during warm-up (its lanes are not counted either). */
type Run = (count: boolean) => Promise<unknown>;

interface Row {
  what: string;
  times: Partial<Record<Column, Summary>>;
  lanes: Partial<Record<Column, Map<string, number>>>;
  /** Why there is no mobile-mcp figure, when there is none. */
  mcpNote?: string;
  goal: string;
  /** Judged from the figures of this run; absent when the row has no goal. */
  judge?: () => boolean;
}

/** adb CLI, one process per command, against the private server (as mobile-mcp spawns `adb`). */
function adbCli(port: number, serial: string, args: string[]): Promise<Buffer> {
  const env = { ...process.env };
  delete env.ANDROID_ADB_SERVER_PORT;
  delete env.ADB_SERVER_SOCKET;
  return new Promise((resolve, reject) => {
    execFile(
      'adb',
      ['-P', String(port), '-s', serial, ...args],
      { env, encoding: 'buffer', maxBuffer: 64 * 1024 * 1024, timeout: 60_000 },
      (error, stdout) => {
        if (error) reject(error);
        else resolve(stdout);
      },
    );
  });
}

/** Runs the paths given, alternating call by call; `warmup` rounds are not counted. */
async function race<K extends string>(
  samples: number,
  warmup: number,
  paths: Partial<Record<K, Run>>,
): Promise<Partial<Record<K, Summary>>> {
  const times = new Map<K, number[]>();
  for (let i = 0; i < samples + warmup; i++) {
    for (const [path, run] of Object.entries(paths) as Array<[K, Run | undefined]>) {
      if (!run) continue;
      const t0 = now();
      await run(i >= warmup);
      const t = now() - t0;
      if (i >= warmup) times.set(path, [...(times.get(path) ?? []), t]);
    }
  }
  const out: Partial<Record<K, Summary>> = {};
  for (const [path, list] of times) out[path] = summarize(list);
  return out;
}

/** Three `usb-phone` phones in Notes: S with ADB Keyboard, F and H without. */
async function startLanePhones(
  cleanup: Cleanup,
  adb: AdbServerRig,
): Promise<{ phones: SimulatedPhone[]; serials: string[] }> {
  const phones: SimulatedPhone[] = [];
  const farm = await startSimFarm({
    count: 3,
    adb: { host: '127.0.0.1', port: adb.port },
    timeoutMs: 60_000,
    createPhone: (i) => {
      const phone = createSimulatedPhone({
        serial: `BENCHFL${i}`,
        model: 'Pixel 7',
        withAdbKeyboard: i === 0,
        profile: 'usb-phone',
      });
      phones[i] = phone;
      return phone;
    },
  });
  cleanup.add('fast lane phones', async () => {
    await farm.stop();
    for (const phone of phones) phone.close();
  });
  await Promise.all(
    phones.map(async (phone) => {
      const out = await phone.exec('monkey -p com.example.notes -c android.intent.category.LAUNCHER 1', {
        signal: AbortSignal.timeout(15_000),
      });
      if (out.exitCode !== 0) throw new Error(`could not open Notes on ${phone.serial}`);
    }),
  );
  return { phones, serials: farm.phones.map((p) => p.serial) };
}

function ratio(stock: Summary | undefined, other: Summary | undefined): string {
  return stock && other ? `${(other.p50 / stock.p50).toFixed(2)}×` : '—';
}

function spread(map: Map<string, number> | undefined): string {
  return map && map.size > 0 ? [...map].map(([lane, n]) => `${lane} ${n}`).join(', ') : '—';
}

export async function fastLaneBench(
  report: Report,
  cleanup: Cleanup,
  adb: AdbServerRig,
  quick: boolean,
  log: (line: string) => void,
): Promise<void> {
  // directTree: the bridge's own time on a 1.6 s tree read is a millisecond or two, so it gets
  // enough pairs for a p50 that a millisecond can be read from.
  const n = quick
    ? { tap: 5, tree: 4, type: 3, direct: 20, directTree: 6 }
    : { tap: 20, tree: 12, type: 8, direct: 100, directTree: 40 };
  log(
    'e. fast lane: three usb-phone phones (S stock with ADB Keyboard; F default lanes, H UIA2 helper, without), one bridge',
  );
  const { phones, serials } = await startLanePhones(cleanup, adb);
  const [serialS, serialF] = serials as [string, string, string];
  const phoneF = phones[1]!;
  const phoneH = phones[2]!;
  // The bridge as installed: compiled, in its own process (the agent and the phones are never in
  // its event loop), so its own time per call is the product's, not tsx's or the bench's.
  compileBridge((line) => log(`e. ${line}`));
  const bridge: BridgeHandle = await startSpawnedBridge(cleanup, adb, { built: true });
  const [idS, idF, idH] = (await waitForDevices(bridge, serials)) as [string, string, string];
  // The check the bridge runs when a phone connects ends with a stock dump, for which the UI
  // reader lets go: it is over before anything is timed.
  await waitUntil(
    async () =>
      (await bridgeDevices(bridge)).filter((d) => [idS, idF, idH].includes(d.device_id) && d.check && !d.check.running)
        .length === 3,
    120_000,
    'the phones’ first checks done',
  );
  // S: the stock lane, as on a phone whose person turned the programs off on its card.
  await setPrograms(bridge, idS, 'disable');
  const enabled = await bridge.admin('POST', `/admin/api/devices/${idH}/programs`, {
    action: 'enable',
    program: 'uia2_server',
    accept_open_ports: true,
  });
  if (enabled.status !== 200)
    throw new Error(`enable the UIA2 helper: HTTP ${enabled.status} ${JSON.stringify(enabled.body)}`);
  const client: WireClient = await connectClient(cleanup, bridge, 'fast lane client');
  const ch: Record<'stock' | 'fast' | 'helper', string> = {
    stock: await bindChannel(bridge, client, idS),
    fast: await bindChannel(bridge, client, idF),
    helper: await bindChannel(bridge, client, idH),
  };

  // F: the lease's first call starts the programs in the background (it takes the stock lane).
  const programsT0 = now();
  const firstF = await callTool(client, ch.fast, 'android_ui_tree');
  await waitForProgramsReady(bridge, idF);
  const programsMs = now() - programsT0;
  // H: the helper installs, then starts with the first call that can use it.
  const helperState = async (): Promise<string> =>
    String((await programsOf(bridge, idH)).find((p) => p.program === 'uia2_server')?.state);
  // The first call that can use it installs it in the background (that call goes the stock way);
  // once installed (its lifecycle idle again), the next call starts it and waits for it.
  const firstT0 = now();
  let firstH = await callTool(client, ch.helper, 'android_ui_tree');
  let helperStartMs = now() - firstT0;
  const helperDeadline = now() + 120_000;
  while (firstH.lane !== 'helper') {
    if (now() > helperDeadline)
      throw new Error(
        `the UIA2 helper never served phone H: ${JSON.stringify((await programsOf(bridge, idH)).find((p) => p.program === 'uia2_server'))}`,
      );
    await waitUntil(async () => (await helperState()) === 'idle', 120_000, 'the UIA2 helper installed on phone H');
    const helperT0 = now();
    firstH = await callTool(client, ch.helper, 'android_ui_tree');
    helperStartMs = now() - helperT0;
  }
  const stockPrograms = await programsOf(bridge, idS);
  if (stockPrograms.some((p) => p.state !== 'off'))
    throw new Error(`phone S still runs programs: ${JSON.stringify(stockPrograms)}`);

  // Every phone: the note field focused once, so typing lands in it.
  for (const channel of Object.values(ch))
    await callTool(client, channel, 'android_tap', { element: { resource_id: 'note_text' } });

  const rows: Row[] = [];
  let lanes: Partial<Record<Column, Map<string, number>>> = {};
  const tool =
    (column: Exclude<Column, 'mcp'>, id: string, args: Record<string, unknown> = {}): Run =>
    async (count) => {
      const result = await callTool(client, ch[column], id, args);
      if (!count) return;
      const map = (lanes[column] ??= new Map());
      const lane = String(result.lane ?? '—');
      map.set(lane, (map.get(lane) ?? 0) + 1);
    };
  const mcp =
    (args: string[]): Run =>
    () =>
      adbCli(adb.port, serialS, args);
  const both =
    (a: Run, b: Run): Run =>
    async (count) => {
      await a(count);
      await b(count);
    };
  const row = async (
    what: string,
    samples: number,
    warmup: number,
    paths: Partial<Record<Column, Run>>,
    goal: Omit<Row, 'what' | 'times' | 'lanes'> = { goal: '—' },
  ): Promise<Row> => {
    log(`e. ${what}`);
    lanes = {};
    const made: Row = { what, times: await race(samples, warmup, paths), lanes, ...goal };
    rows.push(made);
    return made;
  };
  const p50 = (r: Row, c: Column): number => r.times[c]?.p50 ?? Number.NaN;

  const tree = await row('android_ui_tree', n.tree, 2, {
    stock: tool('stock', 'android_ui_tree'),
    fast: tool('fast', 'android_ui_tree'),
    helper: tool('helper', 'android_ui_tree'),
    mcp: mcp(['exec-out', 'uiautomator', 'dump', '/dev/tty']),
  });
  tree.goal = 'fast ≤ 0.5× stock';
  tree.judge = () => p50(tree, 'fast') <= 0.5 * p50(tree, 'stock');

  // Each phone idles while the other paths run (about 3 s, like an agent deciding its next
  // call), so the fast lane's read of the screen after the last tap is ready for the gate.
  const tap = await row('android_tap, default policy (screen read first)', n.tap, 2, {
    stock: tool('stock', 'android_tap', IDLE_TAP),
    fast: tool('fast', 'android_tap', IDLE_TAP),
    helper: tool('helper', 'android_tap', IDLE_TAP),
    mcp: mcp(['shell', 'input', 'tap', String(IDLE_TAP.x), String(IDLE_TAP.y)]),
  });
  tap.goal = 'fast ≤ 0.25× stock';
  tap.judge = () => p50(tap, 'fast') <= 0.25 * p50(tap, 'stock');

  // Back to back, the next tap waits for that read instead.
  const backToBack = await row('android_tap, default policy, back to back (no time between calls)', n.tap, 2, {
    fast: tool('fast', 'android_tap', IDLE_TAP),
    helper: tool('helper', 'android_tap', IDLE_TAP),
  });
  if (tap.times.stock) backToBack.times.stock = tap.times.stock;
  backToBack.mcpNote = '—';

  await row('observe → act (android_ui_tree, then android_tap; default policy)', n.tree, 1, {
    stock: both(tool('stock', 'android_ui_tree'), tool('stock', 'android_tap', IDLE_TAP)),
    fast: both(tool('fast', 'android_ui_tree'), tool('fast', 'android_tap', IDLE_TAP)),
    helper: both(tool('helper', 'android_ui_tree'), tool('helper', 'android_tap', IDLE_TAP)),
    mcp: both(
      mcp(['exec-out', 'uiautomator', 'dump', '/dev/tty']),
      mcp(['shell', 'input', 'tap', String(IDLE_TAP.x), String(IDLE_TAP.y)]),
    ),
  });

  await row('android_type_text "hello world"', n.type, 1, {
    stock: tool('stock', 'android_type_text', { text: 'hello world' }),
    fast: tool('fast', 'android_type_text', { text: 'hello world' }),
    helper: tool('helper', 'android_type_text', { text: 'hello world' }),
    mcp: mcp(['shell', 'input', 'text', 'hello%sworld']),
  });

  const field = (phone: SimulatedPhone): string => phone.screenState().fields.note_text ?? '';
  const before = { fast: field(phoneF), helper: field(phoneH) };
  const chinese = await row(
    `android_type_text "${CHINESE}" (stock: ADB Keyboard; fast and UIA2: no keyboard app)`,
    n.type,
    1,
    {
      stock: tool('stock', 'android_type_text', { text: CHINESE }),
      fast: tool('fast', 'android_type_text', { text: CHINESE }),
      helper: tool('helper', 'android_type_text', { text: CHINESE }),
    },
    { goal: 'fast ≤ 200 ms, typed exactly, no keyboard app', mcpNote: 'cannot (no Unicode without ADB Keyboard)' },
  );
  // Every call, warm-up included, appended the text once to the focused field.
  const typedExactly = {
    fast: field(phoneF) === before.fast + CHINESE.repeat(n.type + 1),
    helper: field(phoneH) === before.helper + CHINESE.repeat(n.type + 1),
  };
  chinese.judge = () => p50(chinese, 'fast') <= 200 && typedExactly.fast;

  // Outside the bridge: a UI reader of our own on phone S (F's one UiAutomation connection is the
  // bridge's reader's; S runs no program, the same profile and screen), and later a second
  // scrcpy-server session of our own on F.
  const adbClient = Adb.createClient({ host: '127.0.0.1', port: adb.port, bin: '/bin/false' });
  const directShell = new AdbDeviceShell(adbClient, serialF);
  const readerShell = new AdbDeviceShell(adbClient, serialS);
  const jar = uiReaderJarLocalPath();
  if (!jar) throw new Error('this build carries no UI reader');
  await installUiReaderJar(readerShell, jar);
  const directReader = await UiReaderSession.start(readerShell, { timeoutMs: 30_000 });
  cleanup.add('direct UI reader', () => directReader.stop());
  log('e. android_ui_tree through the bridge against a UiReaderSession directly');
  lanes = {};
  const addedTree = await race(n.directTree, 1, {
    bridge: tool('fast', 'android_ui_tree'),
    direct: () => directReader.tree({ rotation: 0, ...SCREEN }, { timeoutMs: 30_000 }),
  });
  const addedTreeLanes = lanes.fast;
  await cleanup.runNow('direct UI reader');

  if (!(await setScreenChecks(bridge, false))) throw new Error('no policy API');
  const checksOff = await row('android_tap, screen checks off', n.tap, 2, {
    stock: tool('stock', 'android_tap', IDLE_TAP),
    fast: tool('fast', 'android_tap', IDLE_TAP),
    helper: tool('helper', 'android_tap', IDLE_TAP),
    mcp: mcp(['shell', 'input', 'tap', String(IDLE_TAP.x), String(IDLE_TAP.y)]),
  });
  checksOff.goal = 'fast ≤ 0.1× stock';
  checksOff.judge = () => p50(checksOff, 'fast') <= 0.1 * p50(checksOff, 'stock');

  log('e. android_tap (checks off) through the bridge against a second ScrcpyInputSession');
  const directInput = await ScrcpyInputSession.start(directShell, { screen: SCREEN, timeoutMs: 30_000 });
  cleanup.add('direct scrcpy session', () => directInput.stop());
  lanes = {};
  const addedTap = await race(n.direct, 5, {
    bridge: tool('fast', 'android_tap', IDLE_TAP),
    direct: () => directInput.tap(IDLE_TAP.x, IDLE_TAP.y, { timeoutMs: 10_000 }),
  });
  const addedTapLanes = lanes.fast;
  await setScreenChecks(bridge, true);
  await cleanup.runNow('direct scrcpy session');
  const programsF = await programsOf(bridge, idF);

  report.section(
    'e. Fast lane (#17, #35): stock vs the default port-less lanes vs the UIA2 helper (opt-in) vs mobile-mcp-style, usb-phone profile',
  );
  report.add(
    table(
      [
        'call',
        'n',
        'stock p50',
        'fast p50',
        'fast / stock',
        'UIA2 helper p50',
        'UIA2 / stock',
        'mobile-mcp-style p50',
        'stock p95',
        'fast p95',
        'lanes served: stock; fast; UIA2',
        'goal',
        'result',
      ],
      rows.map((r) => [
        r.what,
        String(r.times.fast?.count ?? r.times.stock?.count ?? 0),
        r.times.stock ? ms(r.times.stock.p50) : '—',
        r.times.fast ? ms(r.times.fast.p50) : '—',
        ratio(r.times.stock, r.times.fast),
        r.times.helper ? ms(r.times.helper.p50) : '—',
        ratio(r.times.stock, r.times.helper),
        r.times.mcp ? ms(r.times.mcp.p50) : (r.mcpNote ?? '—'),
        r.times.stock ? ms(r.times.stock.p95) : '—',
        r.times.fast ? ms(r.times.fast.p95) : '—',
        COLUMNS.filter((c) => c !== 'mcp')
          .map((c) => spread(r.lanes[c]))
          .join('; '),
        r.goal,
        r.judge ? (r.judge() ? 'met' : 'missed') : '—',
      ]),
    ),
  );
  const tapOverhead = (addedTap.bridge?.p50 ?? Number.NaN) - (addedTap.direct?.p50 ?? Number.NaN);
  const treeOverhead = (addedTree.bridge?.p50 ?? Number.NaN) - (addedTree.direct?.p50 ?? Number.NaN);
  const line = (label: string, s: Summary | undefined): string[] => [
    label,
    String(s?.count ?? 0),
    s ? ms(s.p50) : '—',
    s ? ms(s.p95) : '—',
  ];
  report.add(
    table(
      ['phone F, screen checks off', 'n', 'p50', 'p95'],
      [
        line(
          `tap through the bridge (WebSocket → queue → journal → scrcpy) — lanes: ${spread(addedTapLanes)}`,
          addedTap.bridge,
        ),
        line(
          'the same tap through a second ScrcpyInputSession on the phone (touch down, up, barrier)',
          addedTap.direct,
        ),
        [
          "bridge's own added time, tap (goal ≤ 2 ms)",
          '',
          Number.isFinite(tapOverhead) ? `${ms(tapOverhead)} — ${tapOverhead <= 2 ? 'met' : 'missed'}` : '—',
          '',
        ],
        line(
          `android_ui_tree through the bridge (XML parsed, compacted, refs) — lanes: ${spread(addedTreeLanes)}`,
          addedTree.bridge,
        ),
        line('UiReaderSession.tree on phone S directly (request, counted XML, no parse)', addedTree.direct),
        ["bridge's own added time, tree", '', Number.isFinite(treeOverhead) ? ms(treeOverhead) : '—', ''],
      ],
    ),
  );
  report.add(
    `Phone F's first call (${String(firstF.lane)} lane) started the port-less programs in the background; they were \`ready\` ` +
      `${ms(programsMs)} ms after it began (scrcpy jar hash checked or pushed, \`app_process\`, first barrier; UI reader jar checked, \`app_process\`, \`ready\`; snapshot APK hash checked or installed). ` +
      `The UIA2 helper's first start on phone H (installed beforehand; \`am instrument\`, /status, session) made the first call take ${ms(helperStartMs)} ms. ` +
      `"${CHINESE}" typed exactly: phone F ${typedExactly.fast ? 'yes' : 'NO'}, phone H ${typedExactly.helper ? 'yes' : 'NO'} (every call appends once to the focused field). ` +
      'Stock = phone S through the bridge with its programs turned off (`input`, `uiautomator dump`, ADB Keyboard broadcasts); ' +
      'fast = phone F through the bridge as it runs by default (scrcpy-server for input, the UI reader for the tree, through adb only); ' +
      'UIA2 helper = phone H with appium-uiautomator2-server turned on (`accept_open_ports: true`); ' +
      'mobile-mcp-style = one `adb` CLI process per command against phone S, no screen checks, as mobile-mcp issues them. ' +
      "The simulated programs' timings are the ones cited in main/sim/TIMING-SOURCES.md. " +
      "In the tap pairs, both paths run while the bridge's read of the screen after each of its taps may still run on the same phone. " +
      `Phone F's programs at the end: ${programsF
        .map(
          (p) =>
            `${p.name} ${p.state}, served ${p.served}, left to stock ${p.fell_back}${p.last_error ? `, last error "${p.last_error}"` : ''}`,
        )
        .join('; ')}.`,
  );
}
